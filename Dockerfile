# syntax=docker/dockerfile:1

# Node.js 22 LTS, the baseline (docs/contributing.md#nodejs-versions), at an exact
# release so that a rebuild runs the Node it was tested with; both stages alike.
# Build: all dependencies, compile TypeScript, then drop the dev dependencies.
FROM node:22.23.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY api ./api
COPY worker ./worker
COPY shared ./shared
COPY bin ./bin
COPY clients ./clients
COPY cli ./cli
# The typed client's schema.d.ts is generated from the app's OpenAPI document at build.
COPY scripts/openapi-document.ts scripts/openapi-types.ts ./scripts/
RUN npm run build && npm prune --omit=dev --ignore-scripts

# Runtime: production dependencies and compiled code only, as the non-root
# `node` user. The same image runs the API and the workers (see compose).
# The command starts node itself (exec form, the same entry point as
# `npm run start:api`): npm does not pass SIGTERM on to its child, so with npm
# in between a stop never reaches the graceful shutdown and node is left
# running until the engine kills it.
FROM node:22.23.0-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./package.json
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node examples ./examples
# Sandbox children start under an address-space limit set by util-linux's
# prlimit, which Debian images carry (util-linux is essential there): fail the
# build here rather than run workers that only log that the limit is missing.
# Its setpriv gives each child a parent-death signal.
RUN prlimit --version && setpriv --version
# Scanned PDF pages and images are read by Tesseract 5 (OCR_LANGUAGES, default eng):
# add a tesseract-ocr-<lang> package per further language. poppler-utils' pdftoppm
# renders the pages for it (a quarter of pdf.js's CPU, by npm run bench:ocr), and its
# pdfimages -list tells scanned pages without decoding their images.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tesseract-ocr tesseract-ocr-eng poppler-utils \
  && rm -rf /var/lib/apt/lists/* \
  && tesseract --version
USER node
EXPOSE 3000
CMD ["node", "dist/api/server.js"]
