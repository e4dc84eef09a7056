// Where `npm run deploy` reads a secret it asks for. On a terminal: typed without echo (raw
// mode; nothing is written back for a key but the line end once it is entered), Ctrl-C stops
// the deploy. Otherwise (CI, a pipe): one line of standard input per question. The question
// goes to standard error; the answer is never written anywhere.

import { createInterface } from 'node:readline';

export interface SecretInput {
  /** The answer to `question`, or undefined when there is no more input. */
  ask(question: string): Promise<string | undefined>;
}

/** Ctrl-C and Ctrl-D in raw mode. */
const INTERRUPT = '\u0003';
const END = '\u0004';
const BACKSPACE = new Set(['\u007f', '\b']);

/** The process's own input: hidden on a terminal, one line per question otherwise. */
export function processSecretInput(prompt: (text: string) => void): SecretInput {
  if (process.stdin.isTTY) return terminalInput(prompt);
  return linesInput(createInterface({ input: process.stdin, terminal: false })[Symbol.asyncIterator](), prompt);
}

/** One line of `lines` per question (trailing whitespace and a CR dropped). */
export function linesInput(
  lines: AsyncIterator<string> | Iterator<string>,
  prompt: (text: string) => void,
): SecretInput {
  return {
    async ask(question) {
      prompt(question);
      const next = await lines.next();
      return next.done ? undefined : String(next.value).replace(/\s+$/, '');
    },
  };
}

function terminalInput(prompt: (text: string) => void): SecretInput {
  return {
    ask: (question) =>
      new Promise((resolve) => {
        prompt(question);
        const stdin = process.stdin;
        let typed = '';
        const finish = (value: string | undefined): void => {
          stdin.off('data', onData);
          stdin.setRawMode(false);
          stdin.pause();
          process.stderr.write('\n');
          resolve(value);
        };
        const onData = (chunk: string): void => {
          for (const key of chunk) {
            if (key === INTERRUPT) {
              stdin.setRawMode(false);
              process.stderr.write('\n');
              process.exit(130);
            }
            if (key === END) {
              finish(typed === '' ? undefined : typed);
              return;
            }
            if (key === '\r' || key === '\n') {
              finish(typed);
              return;
            }
            if (BACKSPACE.has(key)) typed = typed.slice(0, -1);
            else typed += key;
          }
        };
        stdin.setEncoding('utf8');
        stdin.setRawMode(true);
        stdin.resume();
        stdin.on('data', onData);
      }),
  };
}
