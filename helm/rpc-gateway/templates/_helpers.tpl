{{/* Names and labels. */}}
{{- define "rpc-gateway.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "rpc-gateway.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "rpc-gateway.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "rpc-gateway.labels" -}}
helm.sh/chart: {{ include "rpc-gateway.chart" . }}
{{ include "rpc-gateway.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "rpc-gateway.selectorLabels" -}}
app.kubernetes.io/name: {{ include "rpc-gateway.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Labels of one component: gateway, worker, redis. Call with (dict "root" $ "component" "gateway"). */}}
{{- define "rpc-gateway.componentLabels" -}}
{{ include "rpc-gateway.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "rpc-gateway.componentSelectorLabels" -}}
{{ include "rpc-gateway.selectorLabels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "rpc-gateway.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "rpc-gateway.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "rpc-gateway.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}

{{/* "true" when upstreams are listed: [backend] kind = "upstream". */}}
{{- define "rpc-gateway.upstreamMode" -}}
{{- if or .Values.upstreams.node .Values.upstreams.evm }}true{{ end }}
{{- end }}

{{- define "rpc-gateway.secretName" -}}
{{- .Values.secret.existingSecret | default (printf "%s-secret" (include "rpc-gateway.fullname" .)) }}
{{- end }}

{{/* "true" when the chart renders its own Secret. */}}
{{- define "rpc-gateway.createSecret" -}}
{{- if and (not .Values.secret.existingSecret) (or .Values.secret.data (and .Values.redis.external.enabled .Values.redis.external.url)) }}true{{ end }}
{{- end }}

{{/* The data of the chart's own Secret (the config check hook has a copy). */}}
{{- define "rpc-gateway.secretData" -}}
{{- if and .Values.redis.external.enabled .Values.redis.external.url }}
{{ .Values.redis.external.secretKey }}: {{ .Values.redis.external.url | b64enc | quote }}
{{- end }}
{{- range $key, $value := .Values.secret.data }}
{{ $key }}: {{ $value | toString | b64enc | quote }}
{{- end }}
{{- end }}

{{- define "rpc-gateway.redisName" -}}
{{- printf "%s-redis" (include "rpc-gateway.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* "true" when a Redis is configured (external or embedded). */}}
{{- define "rpc-gateway.redisEnabled" -}}
{{- if or .Values.redis.external.enabled .Values.redis.embedded.enabled }}true{{ end }}
{{- end }}

{{/* Secret keys the upstream list reads (urlSecretKey, wsSecretKey). */}}
{{- define "rpc-gateway.upstreamSecretKeys" -}}
{{- $keys := list }}
{{- range concat .Values.upstreams.node .Values.upstreams.evm }}
{{- if .urlSecretKey }}{{ $keys = append $keys .urlSecretKey }}{{ end }}
{{- if .wsSecretKey }}{{ $keys = append $keys .wsSecretKey }}{{ end }}
{{- end }}
{{- $keys | uniq | toJson }}
{{- end }}

{{/*
Everything values must agree on that a JSON schema cannot say clearly. Each failure is one sentence
naming the values to change.
*/}}
{{- define "rpc-gateway.validate" -}}
{{- $upstream := include "rpc-gateway.upstreamMode" . }}
{{- if and (not $upstream) (or (gt (int .Values.replicaCount) 1) .Values.autoscaling.enabled) }}
{{- fail (printf "replicaCount = %v, autoscaling.enabled = %v: the embedded devnet is a single-validator chain on one volume, so it runs in exactly one pod (replicaCount: 1, autoscaling.enabled: false); list your nodes in upstreams.node / upstreams.evm to run many replicas" .Values.replicaCount .Values.autoscaling.enabled) }}
{{- end }}
{{- if and $upstream (or (gt (int .Values.replicaCount) 1) .Values.autoscaling.enabled) }}
{{- $filters := .Values.gatewayToml.filters | default dict }}
{{- if not (and (include "rpc-gateway.redisEnabled" .) .Values.redis.cache .Values.redis.access (ne (toString $filters.shared) "false")) }}
{{- fail (printf "replicaCount = %v, autoscaling.enabled = %v without Redis for filters and caps: each replica would keep its own EVM filters (a poll landing on another replica answers \"filter not found\") and count per-IP caps alone; enable redis.external (or redis.embedded for development) with redis.cache and redis.access true and gatewayToml.filters.shared true, or run one replica" .Values.replicaCount .Values.autoscaling.enabled) }}
{{- end }}
{{- end }}
{{- range $table := list "cache" "queue" "access" }}
{{- $t := index $.Values.gatewayToml $table | default dict }}
{{- if and (hasKey $t "redis_url") (index $t "redis_url") }}
{{- fail (printf "gatewayToml.%s.redis_url: a Redis URL never goes into the ConfigMap; set redis.external.enabled with redis.external.url (kept in the chart's Secret) or a key of secret.existingSecret, or redis.embedded.enabled for development" $table) }}
{{- end }}
{{- end }}
{{- if hasKey (.Values.gatewayToml | default dict) "backend" }}
{{- fail "gatewayToml.backend: [backend] kind is the chart's: \"upstream\" when upstreams.node or upstreams.evm list nodes, else \"embedded\"" }}
{{- end }}
{{- $up := .Values.gatewayToml.upstream | default dict }}
{{- if or (hasKey $up "node") (hasKey $up "evm") }}
{{- fail "gatewayToml.upstream.node / .evm: list upstream nodes in upstreams.node and upstreams.evm (the chart writes [[upstream.node]] / [[upstream.evm]] from them)" }}
{{- end }}
{{- if and .Values.redis.external.enabled .Values.redis.embedded.enabled }}
{{- fail "redis.external.enabled and redis.embedded.enabled: choose one Redis" }}
{{- end }}
{{- if and .Values.redis.external.enabled (not .Values.secret.existingSecret) (not .Values.redis.external.url) }}
{{- fail (printf "redis.external.enabled: set redis.external.url (redis:// or rediss://), or secret.existingSecret holding the URL under the key %q" .Values.redis.external.secretKey) }}
{{- end }}
{{- if and .Values.workers.enabled (not (include "rpc-gateway.upstreamMode" .)) }}
{{- fail "workers.enabled: a worker delivers to upstream nodes; list them in upstreams.node / upstreams.evm (the embedded devnet delivers its own queue)" }}
{{- end }}
{{- if and .Values.workers.enabled (not (and (include "rpc-gateway.redisEnabled" .) .Values.redis.queue)) }}
{{- fail "workers.enabled: the workers deliver a durable queue, which lives in Redis; enable redis.external (production) or redis.embedded (development), with redis.queue: true" }}
{{- end }}
{{- range $pool := list "node" "evm" }}
{{- range $i, $u := index $.Values.upstreams $pool }}
{{- if and $u.url $u.urlSecretKey }}
{{- fail (printf "upstreams.%s[%d] (%s): give url or urlSecretKey, not both" $pool $i $u.name) }}
{{- end }}
{{- if not (or $u.url $u.urlSecretKey) }}
{{- fail (printf "upstreams.%s[%d] (%s): give its url, or urlSecretKey naming the Secret's key that holds it" $pool $i $u.name) }}
{{- end }}
{{- if and $u.ws $u.wsSecretKey }}
{{- fail (printf "upstreams.%s[%d] (%s): give ws or wsSecretKey, not both" $pool $i $u.name) }}
{{- end }}
{{- end }}
{{- end }}
{{- if not .Values.secret.existingSecret }}
{{- range $key := include "rpc-gateway.upstreamSecretKeys" . | fromJsonArray }}
{{- if not (hasKey $.Values.secret.data $key) }}
{{- fail (printf "upstreams: the Secret key %q is not in secret.data; add it there (its value is the URL) or use secret.existingSecret" $key) }}
{{- end }}
{{- end }}
{{- range $var, $key := .Values.secret.env }}
{{- if not (hasKey $.Values.secret.data $key) }}
{{- fail (printf "secret.env.%s: the Secret key %q is not in secret.data; add it there or use secret.existingSecret" $var $key) }}
{{- end }}
{{- end }}
{{- end }}
{{- if and .Values.apiKeys.enabled (not .Values.secret.existingSecret) (not (hasKey .Values.secret.data .Values.apiKeys.secretKey)) }}
{{- fail (printf "apiKeys.enabled: the keys file %q is not in secret.data; add it there (the file's text) or use secret.existingSecret" .Values.apiKeys.secretKey) }}
{{- end }}
{{- if and .Values.ingress.enabled (not (or .Values.ingress.nodeRpc.host .Values.ingress.evmHttp.host .Values.ingress.evmWs.host)) }}
{{- fail "ingress.enabled: give at least one of ingress.nodeRpc.host, ingress.evmHttp.host, ingress.evmWs.host" }}
{{- end }}
{{- end }}
