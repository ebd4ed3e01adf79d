import { describe, expect, it } from '@jest/globals';
import { csrsProblem, nodesProblem, operatorsProblem } from './guest-checks.js';

const list = (...items: unknown[]) => ({ status: 200, body: { items } });
const operator = (name: string, conditions: object[]) => ({
  metadata: { name },
  status: { conditions },
});
const AVAILABLE = { type: 'Available', status: 'True', reason: 'AsExpected' };
const NOT_DEGRADED = { type: 'Degraded', status: 'False', reason: 'AsExpected' };

describe('the readiness gates', () => {
  it('passes ClusterOperators that are Available and not Degraded', () => {
    expect(
      operatorsProblem(
        list(operator('dns', [AVAILABLE, NOT_DEGRADED]), operator('etcd', [AVAILABLE])),
        [],
      ),
    ).toBeUndefined();
  });

  it('names the first operator that is not Available or is Degraded, in its own words', () => {
    const degraded = {
      type: 'Degraded',
      status: 'True',
      reason: 'DNSDegraded',
      message: 'DNS default is degraded',
    };
    expect(operatorsProblem(list(operator('dns', [AVAILABLE, degraded])), [])).toBe(
      'ClusterOperator dns is Degraded: Degraded=True (DNSDegraded): DNS default is degraded',
    );
    const down = { type: 'Available', status: 'False', reason: 'Down', message: 'no pods' };
    expect(operatorsProblem(list(operator('console', [down])), [])).toBe(
      'ClusterOperator console is not Available: Available=False (Down): no pods',
    );
    expect(operatorsProblem(list(operator('ingress', [])), [])).toBe(
      'ClusterOperator ingress is not Available (no Available condition)',
    );
  });

  it('skips the operators the pool ignores, and refuses a guest that reports none', () => {
    const degraded = { type: 'Degraded', status: 'True', reason: 'Broken' };
    expect(
      operatorsProblem(list(operator('insights', [AVAILABLE, degraded])), ['insights']),
    ).toBeUndefined();
    expect(operatorsProblem(list(), [])).toBe('the guest reports no ClusterOperator');
    expect(operatorsProblem({ status: 404, body: undefined }, [])).toBe(
      'listing ClusterOperators answered 404',
    );
  });

  it('wants every node Ready', () => {
    const ready = {
      metadata: { name: 'crc' },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    };
    const notReady = {
      metadata: { name: 'worker-1' },
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'False',
            reason: 'KubeletNotReady',
            message: 'PLEG is not healthy',
          },
        ],
      },
    };
    expect(nodesProblem(list(ready))).toBeUndefined();
    expect(nodesProblem(list(ready, notReady))).toBe(
      'node worker-1 is not Ready: Ready=False (KubeletNotReady): PLEG is not healthy',
    );
    expect(nodesProblem(list())).toBe('the guest has no node');
  });

  it('wants no kubelet CSR pending, whatever other signers have', () => {
    const csr = (name: string, signerName: string, conditions: object[] = []) => ({
      metadata: { name },
      spec: { signerName },
      status: { conditions },
    });
    const approved = [{ type: 'Approved', status: 'True' }];
    expect(
      csrsProblem(
        list(
          csr('csr-a', 'kubernetes.io/kube-apiserver-client-kubelet', approved),
          csr('csr-other', 'kubernetes.io/kube-apiserver-client'),
        ),
      ),
    ).toBeUndefined();
    expect(
      csrsProblem(
        list(
          csr('csr-b', 'kubernetes.io/kube-apiserver-client-kubelet'),
          csr('csr-c', 'kubernetes.io/kubelet-serving'),
        ),
      ),
    ).toBe('2 kubelet CertificateSigningRequest(s) pending approval: csr-b, csr-c');
  });
});
