// Prints one plain closing line, 'tests: N passed, N failed', that any CI can read.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    console.log(`tests: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped`);
  }
}
module.exports = SummaryReporter;
