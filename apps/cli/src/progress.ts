import { print, stdout } from './io';

/** A one-line progress bar on a terminal; plain lines (only when changed) when output is piped. */
export function progressBar(label: string) {
  const out = stdout();
  const tty = out.isTTY === true;
  let last = '';
  return {
    update(done: number, total: number, detail = '') {
      const ratio = total > 0 ? Math.min(1, done / total) : 1;
      const width = 30;
      const filled = Math.round(ratio * width);
      const line = `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.floor(ratio * 100)}% ${done}/${total}${detail ? ` ${detail}` : ''}`;
      if (line === last) return;
      last = line;
      if (tty) out.write(`\r${line}\u001b[K`);
      else print(line);
    },
    done() {
      if (tty && last) out.write('\n');
    },
  };
}
