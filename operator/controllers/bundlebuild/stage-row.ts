import type { BuildStep } from '../../../contracts/bundle-build.js';
import type { BundleStatus } from '../bundles/bundle-status.js';
import type { BuildPass } from './build-pass.js';
import type { BuildRecord } from './build-record.js';
import type { Nothing, Verdict } from '../../reconcile/verdict.js';

/** One row of the stage table (build-stages.ts; docs/bundle-build.md#stage-map). */
export interface BuildStage {
  /**
   * P0 to P13 by their place in the table, V for the validation: in the step keys of
   * status.build.steps, the step Jobs' names, and every message about the stage.
   */
  code: string;
  /** status.build.stage (the Stage printer column) while the stage runs. */
  name: string;
  /** The stage's condition on the CRCBundle: True once it is done. */
  condition: string;
  /** The agent steps it runs, in order (`crc-agent bundle-build <step>`, one Job each). */
  steps: readonly BuildStep[];
  /** One pass of the stage's work: made, recorded, checked; `holds` once the stage is done. */
  work: (pass: BuildPass, stage: BuildStage) => Promise<Verdict<Nothing>>;
  /** What the operator makes or does itself in the stage, for the docs and the reader. */
  operator?: string;
  /** The bundle's published fields, once the stage is done (what instances clone). */
  publishes?: (build: BuildRecord, namespace: string, bundleName: string) => Partial<BundleStatus>;
}

/** How messages and Events name a stage: `P5 InstallWait`. */
export function stageLabel(stage: Pick<BuildStage, 'code' | 'name'>): string {
  return `${stage.code} ${stage.name}`;
}
