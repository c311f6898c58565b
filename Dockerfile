# syntax=docker/dockerfile:1

# Build: all dependencies, compile TypeScript, then drop the dev dependencies.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY api ./api
COPY worker ./worker
COPY shared ./shared
COPY bin ./bin
RUN npm run build && npm prune --omit=dev --ignore-scripts

# Runtime: production dependencies and compiled code only, as the non-root
# `node` user. The same image runs the API and the workers (see compose).
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./package.json
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node examples ./examples
USER node
EXPOSE 3000
CMD ["npm", "run", "start:api"]
