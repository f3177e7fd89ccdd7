// Prints plain closing lines any CI can read: the time each Jest project's files took (summed over the files, so
// with several workers it is more than the wall clock), the ten slowest files, and last 'tests: N passed, N failed'.
const { relative } = require('node:path');

const SLOWEST = 10;

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const files = results.testResults
      .filter((file) => file.perfStats && file.perfStats.end > 0)
      .map((file) => ({
        path: relative(this.rootDir, file.testFilePath),
        project: (file.displayName && (file.displayName.name || file.displayName)) || 'default',
        ms: file.perfStats.end - file.perfStats.start,
        tests: file.numPassingTests + file.numFailingTests + file.numPendingTests + file.numTodoTests,
      }));
    if (files.length > 0) {
      const projects = new Map();
      for (const file of files) {
        const seen = projects.get(file.project) || { ms: 0, files: 0, tests: 0 };
        projects.set(file.project, { ms: seen.ms + file.ms, files: seen.files + 1, tests: seen.tests + file.tests });
      }
      console.log('time per project (the sum of its files):');
      for (const [project, { ms, files: count, tests }] of [...projects].sort((a, b) => b[1].ms - a[1].ms)) {
        console.log(`  ${project.padEnd(12)} ${seconds(ms).padStart(9)}  ${count} files, ${tests} tests`);
      }
      console.log(`the ${Math.min(SLOWEST, files.length)} slowest test files:`);
      for (const file of [...files].sort((a, b) => b.ms - a.ms).slice(0, SLOWEST)) {
        console.log(`  ${seconds(file.ms).padStart(9)}  ${file.path}`);
      }
    }
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    console.log(`tests: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped`);
  }
}
module.exports = SummaryReporter;
