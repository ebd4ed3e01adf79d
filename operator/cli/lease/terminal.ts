/** What a command answers: stdout, for scripts (`KUBECONFIG=$(guestcluster lease acquire …)`). */
export function say(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** What a command tells the person or the CI log while it works: stderr. */
export function tell(line: string): void {
  process.stderr.write(`${line}\n`);
}
