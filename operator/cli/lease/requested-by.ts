import os from 'node:os';

/**
 * Who asks for a lease, for its spec.requestedBy: the CI job when the environment names one
 * (GitLab CI, Tekton through the Task's env, Jenkins), else the person at the terminal.
 */
export function requestedBy(env: NodeJS.ProcessEnv = process.env): string {
  return (
    gitLab(env) ??
    tekton(env) ??
    jenkins(env) ??
    `${os.userInfo().username}@${os.hostname()} (guestcluster lease)`
  );
}

/** GitLab CI's predefined variables (CI_*): project, pipeline, job and who started it. */
function gitLab(env: NodeJS.ProcessEnv): string | undefined {
  if (env.GITLAB_CI !== 'true' || !env.CI_JOB_ID) return undefined;
  const parts = [
    `GitLab ${env.CI_PROJECT_PATH ?? ''}`.trim(),
    env.CI_PIPELINE_ID && `pipeline ${env.CI_PIPELINE_ID}`,
    `job ${env.CI_JOB_ID}${env.CI_JOB_NAME ? ` (${env.CI_JOB_NAME})` : ''}`,
    env.GITLAB_USER_LOGIN && `by ${env.GITLAB_USER_LOGIN}`,
    env.CI_JOB_URL,
  ];
  return parts.filter(Boolean).join(' ');
}

/**
 * Tekton sets no variables of its own: the Task passes its context ($(context.taskRun.name),
 * $(context.taskRun.namespace)) in these, as samples/tekton/lease-task.yaml does.
 */
function tekton(env: NodeJS.ProcessEnv): string | undefined {
  if (!env.TEKTON_TASKRUN_NAME) return undefined;
  const where = env.TEKTON_TASKRUN_NAMESPACE ? `${env.TEKTON_TASKRUN_NAMESPACE}/` : '';
  const pipeline = env.TEKTON_PIPELINERUN_NAME
    ? ` of PipelineRun ${env.TEKTON_PIPELINERUN_NAME}`
    : '';
  return `Tekton TaskRun ${where}${env.TEKTON_TASKRUN_NAME}${pipeline}`;
}

/** Jenkins: JOB_NAME, BUILD_NUMBER and BUILD_URL. */
function jenkins(env: NodeJS.ProcessEnv): string | undefined {
  if (!env.BUILD_URL || !env.JENKINS_URL) return undefined;
  const build = env.JOB_NAME ? `${env.JOB_NAME} #${env.BUILD_NUMBER ?? '?'} ` : '';
  return `Jenkins ${build}${env.BUILD_URL}`;
}
