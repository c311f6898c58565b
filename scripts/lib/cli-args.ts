/** The command line of a script, after `node script`. */
export const args: readonly string[] = process.argv.slice(2);

/** The value after `--name` on the command line, if given. */
export function flag(name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}
