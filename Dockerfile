# The service image: built once from the lockfile; the API and the worker both run it (see
# docker-compose.yml). Node 24 is the base image's: the `node` dev dependency that pins it for npm
# scripts in development is not installed here.
FROM node:24-bookworm-slim

WORKDIR /app
ENV NODE_ENV=production

# Dependencies first, so a source change does not reinstall them: exactly the lockfile's, runtime ones
# only (anvil and embedded PostgreSQL are dev dependencies; production code never imports them).
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# Every file the entry points import must be copied: test/platform/compose.test.ts follows the imports.
COPY src ./src
COPY daemons ./daemons
COPY migrations ./migrations
COPY contracts/artifacts ./contracts/artifacts
COPY schema ./schema
COPY web ./web
COPY sdk ./sdk
COPY tsconfig.json ./

USER node
EXPOSE 8080
# The API (with RUN_WORKER=false in compose); the worker service runs `npm run worker` instead.
CMD ["npm", "start"]
