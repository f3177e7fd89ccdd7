// The suite's results for the contract kit, written to the file CONTRACT_KIT_RESULTS names when the run ends:
// what `jest --json --outputFile` would write, without its line pointing at a temporary file the kit deletes.
const { writeFileSync } = require('node:fs');

class ResultsReporter {
  onRunComplete(_contexts, results) {
    const target = process.env.CONTRACT_KIT_RESULTS;
    if (!target) return;
    const { numPassedTests, numFailedTests, numPendingTests, numRuntimeErrorTestSuites } = results;
    const testResults = results.testResults.map((file) => ({
      name: file.testFilePath,
      status: file.testExecError || file.numFailingTests > 0 ? 'failed' : 'passed',
      message: file.failureMessage || '',
      assertionResults: file.testResults.map(({ ancestorTitles, title, fullName, status, failureMessages }) => ({
        ancestorTitles,
        title,
        fullName,
        status,
        failureMessages,
      })),
    }));
    writeFileSync(target, JSON.stringify({ numPassedTests, numFailedTests, numPendingTests, numRuntimeErrorTestSuites, testResults }));
  }
}

module.exports = ResultsReporter;
