/** OpenAPI-driven fuzzing of the server on SQLite (test/support/fuzz/suite.ts). */
import { fuzzOpenApi } from '../support/fuzz/suite.js';

fuzzOpenApi('sqlite');
