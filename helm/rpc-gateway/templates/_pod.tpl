{{/*
The init container that writes config/config.toml, app.toml and gateway.toml into the home from the
ConfigMap, putting in the Secret's values where the ConfigMap says ${secret:<key>} (upstream URLs that
carry API keys). Paths come from the environment: CONFIG_SOURCE, SECRET_SOURCE, RPCGW_HOME.
*/}}
{{- define "rpc-gateway.renderConfigScript" -}}
const fs = require('fs');
const path = require('path');
const source = process.env.CONFIG_SOURCE;
const secrets = process.env.SECRET_SOURCE;
const target = path.join(process.env.RPCGW_HOME, 'config');
fs.mkdirSync(target, { recursive: true });
for (const file of ['config.toml', 'app.toml', 'gateway.toml']) {
  const text = fs.readFileSync(path.join(source, file), 'utf8').replace(/\$\{secret:([A-Za-z0-9._-]+)\}/g, (_, key) => {
    let value;
    try {
      value = fs.readFileSync(path.join(secrets, key), 'utf8').trim();
    } catch {
      console.error(`config/${file}: \${secret:${key}}: the Secret has no key ${key}`);
      process.exit(1);
    }
    return JSON.stringify(value).slice(1, -1);
  });
  fs.writeFileSync(path.join(target, file), text, { mode: 0o600 });
}
console.log(`wrote ${target}/config.toml, app.toml, gateway.toml`);
{{- end }}

{{- define "rpc-gateway.configInitContainer" -}}
- name: config
  image: {{ include "rpc-gateway.image" . }}
  imagePullPolicy: {{ .Values.image.pullPolicy }}
  command:
    - node
    - -e
    - |
      {{- include "rpc-gateway.renderConfigScript" . | nindent 6 }}
  env:
    - name: RPCGW_HOME
      value: {{ .Values.homeDir | quote }}
    - name: CONFIG_SOURCE
      value: /etc/rpc-gateway/config
    - name: SECRET_SOURCE
      value: /etc/rpc-gateway/secret
  securityContext:
    {{- toYaml .Values.securityContext | nindent 4 }}
  resources:
    requests: {cpu: 10m, memory: 32Mi}
    limits: {cpu: 200m, memory: 128Mi}
  volumeMounts:
    - name: home
      mountPath: {{ .Values.homeDir }}
    - name: config
      mountPath: /etc/rpc-gateway/config
      readOnly: true
    {{- if include "rpc-gateway.upstreamSecretKeys" . | fromJsonArray }}
    - name: upstream-secrets
      mountPath: /etc/rpc-gateway/secret
      readOnly: true
    {{- end }}
{{- end }}

{{/* Environment of the gateway and the workers: the home, Redis URLs and other values from the Secret. */}}
{{- define "rpc-gateway.env" -}}
{{- include "rpc-gateway.envWith" (dict "root" . "secretName" (include "rpc-gateway.secretName" .)) }}
{{- end }}

{{/* The same, with the Secret's values read from `secretName` (the config check hook's copy before install). */}}
{{- define "rpc-gateway.envWith" -}}
{{- $root := .root }}
{{- $secretName := .secretName -}}
- name: RPCGW_HOME
  value: {{ $root.Values.homeDir | quote }}
{{- if include "rpc-gateway.redisEnabled" $root }}
{{- range $table := list "cache" "queue" "access" }}
{{- if index $root.Values.redis $table }}
- name: RPCGW_{{ upper $table }}_REDIS_URL
{{- if $root.Values.redis.embedded.enabled }}
  value: {{ printf "redis://%s:6379/0" (include "rpc-gateway.redisName" $root) | quote }}
{{- else }}
  valueFrom:
    secretKeyRef:
      name: {{ $secretName }}
      key: {{ $root.Values.redis.external.secretKey }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- range $variable, $key := $root.Values.secret.env }}
- name: {{ $variable }}
  valueFrom:
    secretKeyRef:
      name: {{ $secretName }}
      key: {{ $key }}
{{- end }}
{{- with $root.Values.tracing }}
{{- if .endpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ .endpoint | quote }}
- name: OTEL_EXPORTER_OTLP_PROTOCOL
  value: {{ .protocol | quote }}
- name: OTEL_TRACES_SAMPLER
  value: parentbased_traceidratio
- name: OTEL_TRACES_SAMPLER_ARG
  value: {{ .sampleRatio | quote }}
- name: OTEL_SERVICE_NAME
  value: {{ .serviceName | default (include "rpc-gateway.fullname" $root) | quote }}
{{- end }}
{{- end }}
{{- with $root.Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Volumes of the gateway and the workers: home, /tmp, config, upstream secrets, plugins (`configMap` and `secretName` name other copies of the config and the Secret). */}}
{{- define "rpc-gateway.volumes" -}}
{{- $root := .root }}
- name: home
{{- if and .persistent $root.Values.persistence.enabled }}
  persistentVolumeClaim:
    claimName: {{ $root.Values.persistence.existingClaim | default (printf "%s-home" (include "rpc-gateway.fullname" $root)) }}
{{- else }}
  emptyDir: {}
{{- end }}
- name: tmp
  emptyDir:
    medium: Memory
    sizeLimit: 64Mi
- name: config
  configMap:
    name: {{ .configMap | default (printf "%s-config" (include "rpc-gateway.fullname" $root)) }}
{{- $keys := include "rpc-gateway.upstreamSecretKeys" $root | fromJsonArray }}
{{- if $keys }}
- name: upstream-secrets
  secret:
    secretName: {{ .secretName | default (include "rpc-gateway.secretName" $root) }}
    items:
      {{- range $keys }}
      - key: {{ . }}
        path: {{ . }}
      {{- end }}
{{- end }}
{{- if and .apiKeys $root.Values.apiKeys.enabled }}
- name: api-keys
  secret:
    secretName: {{ include "rpc-gateway.secretName" $root }}
    defaultMode: 0440
    items:
      - key: {{ $root.Values.apiKeys.secretKey }}
        path: {{ $root.Values.apiKeys.secretKey }}
{{- end }}
{{- range $root.Values.pluginMounts }}
- name: plugin-{{ .name }}
{{- if .configMap }}
  configMap:
    name: {{ .configMap }}
{{- else }}
  {{- toYaml .volume | nindent 2 }}
{{- end }}
{{- end }}
{{- with $root.Values.extraVolumes }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "rpc-gateway.volumeMounts" -}}
- name: home
  mountPath: {{ .Values.homeDir }}
- name: tmp
  mountPath: /tmp
{{- range .Values.pluginMounts }}
- name: plugin-{{ .name }}
  mountPath: {{ printf "%s/%s" $.Values.pluginMountRoot .name }}
  readOnly: true
{{- end }}
{{- with .Values.extraVolumeMounts }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Topology spread constraints with the component's labelSelector filled in. */}}
{{- define "rpc-gateway.topologySpread" -}}
{{- $selector := include "rpc-gateway.componentSelectorLabels" (dict "root" .root "component" .component) | fromYaml }}
{{- range .root.Values.topologySpreadConstraints }}
{{- $c := deepCopy . }}
{{- if not (hasKey $c "labelSelector") }}{{ $_ := set $c "labelSelector" (dict "matchLabels" $selector) }}{{ end }}
- {{ toYaml $c | nindent 2 | trim }}
{{- end }}
{{- end }}
