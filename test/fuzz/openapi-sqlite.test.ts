/** OpenAPI-driven fuzzing of the server on SQLite (test/fuzz/harness/suite.ts). */
import { fuzzOpenApi } from './harness/suite.js';

fuzzOpenApi('sqlite');
