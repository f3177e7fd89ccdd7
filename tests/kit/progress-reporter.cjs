// The contract kit's progress: one line per finished test file, and each failed test as it happens, with the
// first place where what it received differs from what it expected. The counts are the summary's: a scenario
// that ended through the suite's skip() is counted as skipped, and a file that could not run as one failure.
const { readdirSync, readFileSync } = require('node:fs');
const { join, relative } = require('node:path');
const { differencesOf, endedBySkip } = require('./first-difference.cjs');

/** The skip records the suite wrote so far (CONTRACT_KIT_RECORD), read without parsing the exchanges. */
function skipRecords() {
  const dir = process.env.CONTRACT_KIT_RECORD;
  if (!dir) return [];
  let names;
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.jsonl'));
  } catch {
    return [];
  }
  return names.flatMap((name) =>
    readFileSync(join(dir, name), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('{"kind":"skip"'))
      .map((line) => JSON.parse(line)),
  );
}

/** Paths as the contract names them: `{customerId}`, not the `%7BcustomerId%7D` of a URL. */
const decoded = (text) => text.replace(/%7B([^%/?#\s]*)%7D/gi, '{$1}');

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
      // eslint-disable-next-line no-control-regex
      const lines = (result.failureMessages[0] || '').replace(/\u001b\[[0-9;]*m/g, '').split('\n');
      const reason = lines.find((line) => line.trim()) || '';
      // Where received and expected first differ; else the matcher's own Expected and Received lines.
      const stated = lines.filter((line) => /^\s*(Expected|Received)[^-+]*:/.test(line)).map((line) => line.trim().replace(/\s+/g, ' '));
      const detail = differencesOf(result)[0] || stated.join(' | ');
      process.stdout.write(`    ✕ ${decoded(result.fullName)}\n      ${decoded(reason.trim())}${detail ? `\n      ${decoded(detail)}` : ''}\n`);
    }
  }

  onTestFileResult(test, result) {
    this.done += 1;
    const file = relative(this.rootDir, test.path);
    const passedNames = result.testResults.filter((entry) => entry.status === 'passed').map((entry) => entry.fullName);
    const skippedBySuite = endedBySkip(skipRecords(), test.path, passedNames);
    const failed = result.numFailingTests + (result.testExecError ? 1 : 0);
    const counts = `${result.numPassingTests - skippedBySuite} passed, ${failed} failed, ${result.numPendingTests + skippedBySuite} skipped`;
    const broken = result.testExecError ? `; could not run: ${String(result.testExecError.message).split('\n')[0]}` : '';
    process.stdout.write(`[${this.done}/${this.total}] ${file}: ${counts}${broken}\n`);
  }
}

module.exports = ProgressReporter;
