import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './paths';

// The workspace's packages, as pnpm finds them: the directories with a package.json. `pnpm deploy` (the
// integration suite's, which may run at the same time) leaves a directory without one under apps/.
const manifests = (dir: string) =>
  readdirSync(join(REPO_ROOT, dir))
    .filter((name) => existsSync(join(REPO_ROOT, dir, name, 'package.json')))
    .map((name) => ({
      dir: `${dir}/${name}`,
      manifest: JSON.parse(readFileSync(join(REPO_ROOT, dir, name, 'package.json'), 'utf8')) as {
        name: string;
        dependencies?: Record<string, string>;
        devDependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
        scripts?: Record<string, string>;
      },
    }));

describe('the package graph', () => {
  it('typechecks every package: in the one program of tsconfig.packages.json, or with its own script', () => {
    const packages = JSON.parse(readFileSync(join(REPO_ROOT, 'tsconfig.packages.json'), 'utf8')) as {
      include: string[];
    };
    const covered = (dir: string) =>
      packages.include.some(
        (entry) => entry === `${dir}/src` || entry === `${dir.replace(/\/[^/]+$/, '')}/*/src`,
      );
    const missing = ['apps', 'packages', 'tests']
      .flatMap(manifests)
      .filter(({ dir, manifest }) => !manifest.scripts?.typecheck && !covered(dir))
      .map(({ dir }) => dir);
    expect(missing).toEqual([]);
  });

  it("places every package's tests and type check in the test command's order (turbo.json's two lanes)", () => {
    const { tasks } = JSON.parse(readFileSync(join(REPO_ROOT, 'turbo.json'), 'utf8')) as {
      tasks: Record<string, { dependsOn?: string[] }>;
    };
    const inLane = (task: string) =>
      (tasks[task]?.dependsOn ?? []).some((dep) => /#(test|typecheck)$/.test(dep)) ||
      Object.values(tasks).some(({ dependsOn }) => dependsOn?.includes(task));
    const missing = ['apps', 'packages', 'tests']
      .flatMap(manifests)
      .flatMap(({ manifest }) =>
        (['test', 'typecheck'] as const)
          .filter((script) => manifest.scripts?.[script])
          .map((script) => `${manifest.name}#${script}`),
      )
      .filter((task) => !inLane(task));
    expect(missing).toEqual([]);
  });

  it('has no package that names an app, in any kind of dependency', () => {
    const apps = new Set(manifests('apps').map(({ manifest }) => manifest.name));
    const offending = manifests('packages').flatMap(({ dir, manifest }) =>
      Object.keys({ ...manifest.dependencies, ...manifest.devDependencies, ...manifest.peerDependencies })
        .filter((name) => apps.has(name))
        .map((name) => `${dir} → ${name}`),
    );
    expect(apps.size).toBeGreaterThan(0);
    expect(offending).toEqual([]);
  });

  it('keeps emulators out of production: no package or app depends on one outside its tests', () => {
    const emulators = manifests('packages')
      .map(({ manifest }) => manifest.name)
      .filter((name) => name.endsWith('-emulator'));
    expect(emulators).toContain('@voice/twilio-emulator');
    const offending = [...manifests('apps'), ...manifests('packages')].flatMap(({ dir, manifest }) =>
      Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })
        .filter((name) => emulators.includes(name))
        .map((name) => `${dir} → ${name}`),
    );
    expect(offending).toEqual([]);
  });
});
