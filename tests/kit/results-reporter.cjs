// The suite's results for the contract kit, written to the file CONTRACT_KIT_RESULTS names when the run ends:
// what `jest --json --outputFile` would write, without its line pointing at a temporary file the kit deletes, and
// with the first difference of each failed comparison (tests/kit/first-difference.cjs).
const { writeFileSync } = require('node:fs');
const { differencesOf } = require('./first-difference.cjs');

class ResultsReporter {
  onRunComplete(_contexts, results) {
    const target = process.env.CONTRACT_KIT_RESULTS;
    if (!target) return;
    const { numPassedTests, numFailedTests, numPendingTests, numRuntimeErrorTestSuites } = results;
    const testResults = results.testResults.map((file) => ({
      name: file.testFilePath,
      status: file.testExecError || file.numFailingTests > 0 ? 'failed' : 'passed',
      message: file.failureMessage || '',
      assertionResults: file.testResults.map((assertion) => ({
        ancestorTitles: assertion.ancestorTitles,
        title: assertion.title,
        fullName: assertion.fullName,
        status: assertion.status,
        failureMessages: assertion.failureMessages,
        // Where received and expected first differ, for each failure that compared two values.
        differences: differencesOf(assertion),
      })),
    }));
    writeFileSync(target, JSON.stringify({ numPassedTests, numFailedTests, numPendingTests, numRuntimeErrorTestSuites, testResults }));
  }
}

module.exports = ResultsReporter;
