/** OpenAPI-driven fuzzing of the server on PostgreSQL (test/support/fuzz/suite.ts). */
import { fuzzOpenApi } from '../support/fuzz/suite.js';

fuzzOpenApi('postgres');
