/** OpenAPI-driven fuzzing of the server on PostgreSQL (test/fuzz/harness/suite.ts). */
import { fuzzOpenApi } from './harness/suite.js';

fuzzOpenApi('postgres');
