// The contract kit's progress: one line per finished test file, and each failed test as it happens.
const { relative } = require('node:path');

class ProgressReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.done = 0;
    this.total = 0;
  }

  onRunStart(results) {
    this.total = results.numTotalTestSuites;
    process.stdout.write(`Running ${this.total} test file(s)\n`);
  }

  onTestCaseResult(test, result) {
    if (result.status === 'failed') {
      const reason = (result.failureMessages[0] || '').split('\n').find((line) => line.trim()) || '';
      process.stdout.write(`    ✕ ${result.fullName}\n      ${reason.trim().slice(0, 160)}\n`);
    }
  }

  onTestFileResult(test, result) {
    this.done += 1;
    const file = relative(this.rootDir, test.path);
    const counts = `${result.numPassingTests} passed, ${result.numFailingTests} failed, ${result.numPendingTests} skipped`;
    const broken = result.testExecError ? `; could not run: ${String(result.testExecError.message).split('\n')[0]}` : '';
    process.stdout.write(`[${this.done}/${this.total}] ${file}: ${counts}${broken}\n`);
  }
}

module.exports = ProgressReporter;
