import { Type } from '@sinclair/typebox';

/**
 * The answer schema of a test plugin's route whose answer is not what the test is about: any JSON,
 * written as it is. The kernel refuses a route without an answer schema, test plugins included.
 */
export const ANY_JSON_ANSWER = { '2xx': Type.Unknown({ description: 'Any JSON (a test route)' }) };
