/*
 * What the cluster-version operator and the cluster operators of a settled OpenShift 4 cluster
 * report (openshift/api config/v1 types_cluster_version.go and types_cluster_operator.go): the
 * version applied, its history, and the conditions `oc get clusterversion` and
 * `oc get clusteroperators` print.
 */

type Condition = { type: string; status: string; reason?: string; message?: string };

const at = (since: string) => (condition: Condition) => ({
  ...condition,
  lastTransitionTime: since,
});

/** ClusterVersion `version` once the release was applied: Available, not Progressing or Failing. */
export function clusterVersionStatus(version: string, image: string, since: string): object {
  return {
    desired: { image, version },
    history: [
      {
        state: 'Completed',
        version,
        image,
        verified: false,
        startedTime: since,
        completionTime: since,
      },
    ],
    availableUpdates: null,
    observedGeneration: 1,
    versionHash: 'simulated',
    conditions: [
      { type: 'Available', status: 'True', message: `Done applying ${version}` },
      { type: 'Failing', status: 'False' },
      { type: 'Progressing', status: 'False', message: `Cluster version is ${version}` },
      {
        type: 'RetrievedUpdates',
        status: 'False',
        reason: 'NoChannel',
        message: 'The update channel has not been configured.',
      },
    ].map(at(since)),
  };
}

/** A ClusterOperator at the cluster's version: Available, not Progressing or Degraded. */
export function clusterOperatorStatus(version: string, since: string): object {
  return {
    versions: [{ name: 'operator', version }],
    conditions: [
      { type: 'Available', status: 'True', reason: 'AsExpected', message: 'All is well' },
      { type: 'Progressing', status: 'False', reason: 'AsExpected' },
      { type: 'Degraded', status: 'False', reason: 'AsExpected' },
      { type: 'Upgradeable', status: 'True', reason: 'AsExpected' },
    ].map(at(since)),
  };
}
