import { expect } from 'chai';
import { Type } from '@sinclair/typebox';
import { definePlugin } from '../../kernel/index.ts';
import { startTestKernel, type TestKernel } from '../helpers/kernel.ts';
import { ANY_JSON_ANSWER } from '../helpers/any-answer.ts';

/** One route with a body, a path parameter and a query of every common rule. */
const probe = definePlugin({
  id: 'test-validation-messages',
  processes: ['core-api'],
  needs: [],
  routes(app) {
    app.post(
      '/t/things/:id',
      {
        config: { public: true },
        schema: {
          params: Type.Object({ id: Type.String({ format: 'uuid' }) }),
          querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) }),
          body: Type.Object(
            {
              name: Type.String({ minLength: 1, maxLength: 5 }),
              kind: Type.Optional(Type.Union([Type.Literal('a'), Type.Literal('b')])),
              tags: Type.Optional(Type.Array(Type.String(), { minItems: 1, maxItems: 2 })),
              nested: Type.Optional(Type.Object({ email: Type.String({ format: 'email' }) })),
            },
            { additionalProperties: false },
          ),
          response: ANY_JSON_ANSWER,
        },
      },
      async () => ({ ok: true }),
    );
  },
});

const ID = '0b6f5a4e-1c2d-4e3f-8a9b-0c1d2e3f4a5b';

describe('validation answers: a sentence naming the input, beside its field', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ plugins: [], extraPlugins: [probe] });
  });
  after(async () => t?.close());

  async function refused(url: string, body: unknown) {
    const res = await t.call('POST', url, null, body);
    expect(res.statusCode, res.body).to.equal(400);
    const answer = res.json() as { code: string; message: string; field?: string };
    expect(answer.code).to.equal('VALIDATION_FAILED');
    return answer;
  }

  const cases: [string, string, unknown, string | undefined, string][] = [
    ['an empty text', `/t/things/${ID}`, { name: '' }, 'name', 'The field "name" must not be empty.'],
    [
      'a long text',
      `/t/things/${ID}`,
      { name: 'abcdefg' },
      'name',
      'The field "name" must be at most 5 characters long.',
    ],
    ['a missing field', `/t/things/${ID}`, {}, 'name', 'The field "name" is required.'],
    [
      'an unknown field',
      `/t/things/${ID}`,
      { name: 'a', colour: 'red' },
      'colour',
      'The field "colour" is not a known field.',
    ],
    ['a wrong type', `/t/things/${ID}`, { name: 'a', nested: 'x' }, 'nested', 'The field "nested" must be an object.'],
    [
      'a nested format',
      `/t/things/${ID}`,
      { name: 'a', nested: { email: 'nope' } },
      'nested.email',
      'The field "nested.email" must be an email address.',
    ],
    [
      'too many items',
      `/t/things/${ID}`,
      { name: 'a', tags: ['x', 'y', 'z'] },
      'tags',
      'The field "tags" must have at most 2 items.',
    ],
    [
      'a bad path parameter',
      '/t/things/not-a-uuid',
      { name: 'a' },
      'id',
      'The path parameter "id" must be a UUID (like 0b6f5a4e-1c2d-4e3f-8a9b-0c1d2e3f4a5b).',
    ],
    [
      'a query out of range',
      `/t/things/${ID}?limit=500`,
      { name: 'a' },
      'limit',
      'The query parameter "limit" must be at most 100.',
    ],
    ['a body that is no object', `/t/things/${ID}`, [1], undefined, 'The request body must be an object.'],
  ];
  for (const [what, url, body, field, message] of cases) {
    it(`${what}`, async () => {
      const answer = await refused(url, body);
      expect(answer.message).to.equal(message);
      expect(answer.field).to.equal(field);
    });
  }

  it('a value outside a list of choices names the choices', async () => {
    const answer = await refused(`/t/things/${ID}`, { name: 'a', kind: 'c' });
    expect(answer.field).to.equal('kind');
    expect(answer.message).to.match(/^The field "kind" /);
    expect(answer.message).to.not.match(/must NOT|must match/);
  });
});
