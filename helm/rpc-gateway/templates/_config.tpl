{{/*
The three config files as the gateway reads them, from values: configToml, appToml and gatewayToml with
the chart's own keys set (listen addresses on 0.0.0.0 at containerPorts, metrics on, the backend kind,
the upstream lists, mounted plugins, the mounted API keys file, [queue] workers when worker pods run). Returned as JSON: {"config.toml": {...}, "app.toml": ..., ...}.
*/}}
{{- define "rpc-gateway.configDocuments" -}}
{{- $ports := .Values.containerPorts }}
{{- $configToml := deepCopy (.Values.configToml | default dict) }}
{{- $rpc := merge (dict "laddr" (printf "tcp://0.0.0.0:%d" (int $ports.nodeRpc))) (index $configToml "rpc" | default dict) }}
{{- $_ := set $configToml "rpc" $rpc }}
{{- $instrumentation := merge (dict "prometheus" true "prometheus_listen_addr" (printf "0.0.0.0:%d" (int $ports.metrics))) (index $configToml "instrumentation" | default dict) }}
{{- $_ := set $configToml "instrumentation" $instrumentation }}

{{- $appToml := deepCopy (.Values.appToml | default dict) }}
{{- $jsonRpc := merge (dict "address" (printf "0.0.0.0:%d" (int $ports.evmHttp)) "ws-address" (printf "0.0.0.0:%d" (int $ports.evmWs))) (index $appToml "json-rpc" | default dict) }}
{{- $_ := set $appToml "json-rpc" $jsonRpc }}

{{- $gatewayToml := deepCopy (.Values.gatewayToml | default dict) }}
{{- $upstreamMode := include "rpc-gateway.upstreamMode" . }}
{{- $_ := set $gatewayToml "backend" (dict "kind" (ternary "upstream" "embedded" (eq $upstreamMode "true"))) }}
{{- $upstream := index $gatewayToml "upstream" | default dict }}
{{- range $pool := list "node" "evm" }}
{{- $entries := list }}
{{- range index $.Values.upstreams $pool }}
{{- $entry := dict "name" .name "url" (.url | default (printf "${secret:%s}" (.urlSecretKey | default ""))) }}
{{- if hasKey . "weight" }}{{ $_ := set $entry "weight" .weight }}{{ end }}
{{- if .ws }}{{ $_ := set $entry "ws" .ws }}{{ end }}
{{- if .wsSecretKey }}{{ $_ := set $entry "ws" (printf "${secret:%s}" .wsSecretKey) }}{{ end }}
{{- $entries = append $entries $entry }}
{{- end }}
{{- if $entries }}{{ $_ := set $upstream $pool $entries }}{{ end }}
{{- end }}
{{- $_ := set $gatewayToml "upstream" $upstream }}
{{- if .Values.workers.enabled }}
{{- $queue := index $gatewayToml "queue" | default dict }}
{{- $_ := set $queue "workers" false }}
{{- $_ := set $gatewayToml "queue" $queue }}
{{- end }}
{{- if .Values.apiKeys.enabled }}
{{- $access := index $gatewayToml "access" | default dict }}
{{- $_ := set $access "keys_file" (printf "%s/%s" .Values.apiKeys.mountPath .Values.apiKeys.secretKey) }}
{{- $_ := set $gatewayToml "access" $access }}
{{- end }}
{{- $plugins := index $gatewayToml "plugins" | default dict }}
{{- $load := index $plugins "load" | default list }}
{{- range .Values.pluginMounts }}
{{- $load = append $load (printf "%s/%s" $.Values.pluginMountRoot .name) }}
{{- end }}
{{- $_ := set $plugins "load" $load }}
{{- $_ := set $gatewayToml "plugins" $plugins }}
{{- dict "config.toml" $configToml "app.toml" $appToml "gateway.toml" $gatewayToml | toJson }}
{{- end }}

{{/* TOML: a value (string, boolean, number, array, inline table). Whole numbers are written as integers. */}}
{{- define "rpc-gateway.toml.value" -}}
{{- $v := . }}
{{- if kindIs "string" $v }}{{ toJson $v }}
{{- else if kindIs "bool" $v }}{{ $v }}
{{- else if or (kindIs "float64" $v) (kindIs "float32" $v) }}{{ if eq (float64 $v) (floor $v) }}{{ int64 $v }}{{ else }}{{ $v }}{{ end }}
{{- else if or (kindIs "int" $v) (kindIs "int64" $v) (kindIs "int32" $v) (kindIs "uint64" $v) }}{{ $v }}
{{- else if kindIs "slice" $v }}[{{ range $i, $e := $v }}{{ if $i }}, {{ end }}{{ include "rpc-gateway.toml.value" $e }}{{ end }}]
{{- else if kindIs "map" $v }}{ {{- range $i, $k := keys $v | sortAlpha }}{{ if $i }}, {{ end }}{{ include "rpc-gateway.toml.key" $k }} = {{ include "rpc-gateway.toml.value" (get $v $k) }}{{ end -}} }
{{- else }}{{ fail (printf "cannot write %v (%s) in TOML" $v (kindOf $v)) }}
{{- end }}
{{- end }}

{{- define "rpc-gateway.toml.key" -}}
{{- if regexMatch "^[A-Za-z0-9_-]+$" . }}{{ . }}{{ else }}{{ toJson . }}{{ end }}
{{- end }}

{{/* "true" for an array of tables ([[x]]): a non-empty list of maps. */}}
{{- define "rpc-gateway.toml.isTableArray" -}}
{{- if and (kindIs "slice" .) (gt (len .) 0) }}
{{- $all := true }}
{{- range . }}{{ if not (kindIs "map" .) }}{{ $all = false }}{{ end }}{{ end }}
{{- if $all }}true{{ end }}
{{- end }}
{{- end }}

{{/*
TOML: a table and what it holds, (dict "path" "rpc" "table" $map "header" true): its key = value lines,
then its sub-tables ([path.sub]) and arrays of tables ([[path.sub]]). Null values are left out (the
gateway's default applies).
*/}}
{{- define "rpc-gateway.toml.table" -}}
{{- $path := .path }}
{{- $t := .table }}
{{- if .header }}
[{{ $path }}]
{{- end }}
{{- range $k, $v := $t }}
{{- if not (or (kindIs "invalid" $v) (kindIs "map" $v) (include "rpc-gateway.toml.isTableArray" $v)) }}
{{ include "rpc-gateway.toml.key" $k }} = {{ include "rpc-gateway.toml.value" $v }}
{{- end }}
{{- end }}
{{- range $k, $v := $t }}
{{- $sub := ternary (include "rpc-gateway.toml.key" $k) (printf "%s.%s" $path (include "rpc-gateway.toml.key" $k)) (eq $path "") }}
{{- if kindIs "map" $v }}
{{ include "rpc-gateway.toml.table" (dict "path" $sub "table" $v "header" true) }}
{{- else if include "rpc-gateway.toml.isTableArray" $v }}
{{- range $v }}

[[{{ $sub }}]]
{{- include "rpc-gateway.toml.table" (dict "path" $sub "table" . "header" false) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/* A whole file from its document (top-level keys, then tables). */}}
{{- define "rpc-gateway.toml.file" -}}
# Rendered by the rpc-gateway Helm chart from its values; keys as in docs/configuration.md.
{{- include "rpc-gateway.toml.table" (dict "path" "" "table" . "header" false) }}
{{ end }}

{{/* The ConfigMap's data: config.toml, app.toml and gateway.toml (the config check hook has a copy). */}}
{{- define "rpc-gateway.configMapData" -}}
{{- $files := include "rpc-gateway.configDocuments" . | fromJson }}
{{- range $file := list "config.toml" "app.toml" "gateway.toml" }}
{{ $file }}: |
  {{- include "rpc-gateway.toml.file" (index $files $file) | nindent 2 }}
{{- end }}
{{- end }}
