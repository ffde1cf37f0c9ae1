/**
 * The order files start in: the unit project first, while the Auth emulator starts (about 15 s,
 * which the server and browser files would spend waiting), then the browser journeys (the
 * longest files, mostly waiting on Chromium), then the server files, which fill the cores
 * around them. Within a project, vitest's own order: files that failed, then the longest.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const PROJECT_ORDER = ['unit', 'browser', 'server'];

export default class ProjectSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => PROJECT_ORDER.indexOf(file.project.name);
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
