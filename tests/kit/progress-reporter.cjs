// The contract kit's progress: one line per finished test file, and each failed test as it happens, with the
// first place where what it received differs from what it expected. The counts are the summary's: a scenario
// that ended through the suite's skip() is counted as skipped, and a file that could not run as one failure.
const { closeSync, fstatSync, openSync, readdirSync, readSync } = require('node:fs');
const { join, relative } = require('node:path');
const { differencesOf, endedBySkip } = require('./first-difference.cjs');

/**
 * The skip records the suite has written (CONTRACT_KIT_RECORD), read on from where the last call stopped in
 * each file, so that a run's tens of megabytes of exchanges are read once, not once per test file.
 */
class SkipRecords {
  constructor(dir) {
    this.dir = dir;
    this.offsets = new Map();
    this.partial = new Map();
    this.records = [];
  }

  read() {
    if (!this.dir) return this.records;
    let names = [];
    try {
      names = readdirSync(this.dir).filter((name) => name.endsWith('.jsonl'));
    } catch {
      return this.records;
    }
    for (const name of names) {
      const fd = openSync(join(this.dir, name), 'r');
      try {
        const from = this.offsets.get(name) || 0;
        const size = fstatSync(fd).size;
        if (size <= from) continue;
        const buffer = Buffer.alloc(size - from);
        readSync(fd, buffer, 0, buffer.length, from);
        this.offsets.set(name, size);
        // A line still being written stays for the next call.
        const lines = ((this.partial.get(name) || '') + buffer.toString('utf8')).split('\n');
        this.partial.set(name, lines.pop());
        for (const line of lines) if (line.startsWith('{"kind":"skip"')) this.records.push(JSON.parse(line));
      } finally {
        closeSync(fd);
      }
    }
    return this.records;
  }
}

/** Paths as the contract names them: `{customerId}`, not the `%7BcustomerId%7D` of a URL. */
const decoded = (text) => text.replace(/%7B([^%/?#\s]*)%7D/gi, '{$1}');

class ProgressReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.done = 0;
    this.total = 0;
    this.skips = new SkipRecords(process.env.CONTRACT_KIT_RECORD);
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
    const skippedBySuite = endedBySkip(this.skips.read(), test.path, passedNames);
    const failed = result.numFailingTests + (result.testExecError ? 1 : 0);
    const counts = `${result.numPassingTests - skippedBySuite} passed, ${failed} failed, ${result.numPendingTests + skippedBySuite} skipped`;
    const broken = result.testExecError ? `; could not run: ${String(result.testExecError.message).split('\n')[0]}` : '';
    process.stdout.write(`[${this.done}/${this.total}] ${file}: ${counts}${broken}\n`);
  }
}

module.exports = ProgressReporter;
