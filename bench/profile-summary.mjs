// `node bench/profile-summary.mjs <file.cpuprofile> [top]`: where a V8 CPU profile's time went, by
// function (self time) and by package or source file, for the profiles `BENCH_PROFILE_DIR` makes.
import { readFileSync } from 'node:fs';

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/profile-summary.mjs <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMs = new Map();
const intervals = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i += 1)
  selfMs.set(profile.samples[i], (selfMs.get(profile.samples[i]) ?? 0) + (intervals[i] ?? 0) / 1000);
const total = [...selfMs.values()].reduce((sum, ms) => sum + ms, 0);

/** A package name for files under node_modules, else the file's path from the repository. */
const where = (url) => {
  if (!url) return '(native)';
  const modules = /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1];
  return url.replace(/^file:\/\//, '').replace(/^.*\/(apps|packages)\//, '$1/');
};
const byFunction = new Map();
const byPlace = new Map();
for (const [id, ms] of selfMs) {
  const { callFrame } = byId.get(id);
  const name = `${callFrame.functionName || '(anonymous)'} ${where(callFrame.url)}:${callFrame.lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
  byPlace.set(where(callFrame.url), (byPlace.get(where(callFrame.url)) ?? 0) + ms);
}
const show = (title, map) => {
  console.log(title);
  for (const [name, ms] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(
      `  ${((100 * ms) / total).toFixed(1).padStart(5)} %  ${ms.toFixed(0).padStart(7)} ms  ${name}`,
    );
};
console.log(`${file}: ${(total / 1000).toFixed(1)} s sampled`);
show('by place (self time)', byPlace);
show('by function (self time)', byFunction);
