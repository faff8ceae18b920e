import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

/**
 * OpenAPI 3.1 generated from the routes' zod schemas (packages/contracts): the document at
 * /docs/json, a docs UI at /docs. Register before the routes so every route is collected.
 */
export default fp(
  async (app) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'LMS service API',
          version: '1.0.0',
          description:
            'Course catalog, course detail, bundles, progress metrics, API keys, partner single sign-on. ' +
            'Errors are JSON `{success:false, error}` unless a route says otherwise.',
        },
        servers: [
          { url: 'https://lms.example.com', description: 'production' },
          { url: app.config.PUBLIC_URL, description: 'development' },
        ],
        components: {
          securitySchemes: {
            apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'A teacher API key, `lms_key_...`' },
            session: { type: 'apiKey', in: 'cookie', name: app.sessionCookieName, description: 'Browser session after SSO' },
          },
        },
      },
      transform: jsonSchemaTransform,
      transformObject: jsonSchemaTransformObject,
    });
    await app.register(swaggerUi, { routePrefix: '/docs' });
  },
  { name: 'openapi', dependencies: ['auth'] },
);
