/**
 * Reading the docs' samples as a reader runs them: transcripts split into commands and what each
 * printed, and the ids a sample shows mapped to the ids a run produces (see docs-samples.test.ts).
 */

/** A transcript shows its commands as `$ ` lines, each followed by what it printed. */
export function isTranscript(code: string): boolean {
  return code.split('\n').some((line) => line.startsWith('$ '));
}

/** The commands of a transcript (a trailing `\` continues one on the next line) and what each printed. */
export function transcriptSteps(code: string): Array<{ command: string; printed: string }> {
  const steps: Array<{ command: string; printed: string }> = [];
  let continuing = false;
  for (const line of code.split('\n')) {
    const last = steps.at(-1);
    if (line.startsWith('$ ')) steps.push({ command: line.slice(2), printed: '' });
    else if (continuing && last) last.command += `\n${line}`;
    else if (last) last.printed += `${line}\n`;
    continuing = (line.startsWith('$ ') || continuing) && line.endsWith('\\');
  }
  return steps;
}

/** Whether a transcript's command only sets a shell variable (`BASE=$(…)`), for the commands after it. */
export function isAssignment(command: string): boolean {
  return /^\w+=(\$\([^)]*\)|\S*)\s*(#.*)?$/.test(command);
}

const ID = /\b(?:mer|key|sk|cs|po|pb|dep)_[\w-]*…?/g;

/**
 * The ids a page's samples show, mapped to the ids its run printed. An id shortened with `…`
 * (`sk_h0Uf…`) stands for the id it abbreviates; a bare placeholder (`key_…`) for its default.
 */
export class IdMap {
  private readonly learned = new Map<string, string>();

  /**
   * @param placeholders what a bare placeholder stands for (`key_…` → a key id)
   * @param literals text replaced as it is (`http://localhost:8080` → the stack's address)
   */
  constructor(
    private readonly placeholders: Record<string, string>,
    private readonly literals: Record<string, string>,
  ) {}

  /** The text with every id and placeholder replaced by what this run uses. */
  apply(text: string): string {
    const replaced = text.replace(ID, (token) => {
      if (!token.endsWith('…')) return this.learned.get(token) ?? token;
      const stem = token.slice(0, -1);
      for (const [shown, actual] of this.learned) if (shown.startsWith(stem)) return actual;
      const bare = `${stem.slice(0, stem.indexOf('_') + 1)}…`;
      return this.placeholders[bare] ?? token;
    });
    return Object.entries(this.literals).reduce((acc, [from, to]) => acc.split(from).join(to), replaced);
  }

  /** Learns the ids a command printed in place of those the sample shows, kind by kind, in order. */
  learn(shown: string, printed: string): void {
    for (const prefix of ['mer_', 'key_', 'sk_', 'cs_', 'po_', 'pb_', 'dep_']) {
      const ids = (text: string) => [
        ...new Set(
          [...text.matchAll(ID)].map((m) => m[0]).filter((id) => id.startsWith(prefix) && !id.endsWith('…')),
        ),
      ];
      const before = ids(shown);
      const after = ids(printed);
      if (before.length !== after.length) continue; // a list that grew: nothing to pair
      for (const [i, id] of before.entries()) this.learned.set(id, after[i] as string);
    }
  }
}
