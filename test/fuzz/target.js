/**
 * What jazzer loads: it imports its target as a .js module, so this one compiles the TypeScript (the
 * hook jest uses) and hands over the fuzz function of test/fuzz/targets/<FUZZ_TARGET>.ts. Jazzer's
 * instrumentation wraps the compiler hook, so the code under test is instrumented as compiled.
 */
require('../support/register-ts');
exports.fuzz = require(`./targets/${process.env.FUZZ_TARGET}`).fuzz;
