{{- define "gpu-npd.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "gpu-npd.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "gpu-npd.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gpu-npd.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "gpu-npd.labels" -}}
{{ include "gpu-npd.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "gpu-npd.serviceAccountName" -}}
{{- .Values.serviceAccount.name | default (include "gpu-npd.fullname" .) -}}
{{- end -}}

{{- define "gpu-npd.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{/* The agent's built-in kubernetes.taints (agent/kube/settings.py: the kind table's conditions with taint), for
the enforce-mode check of the tolerations when the taints value is null; a test holds them equal. */}}
{{- define "gpu-npd.builtinTaints" -}}
- {condition: GPUUnhealthy, effect: NoSchedule}
- {condition: NVLinkUnhealthy, effect: NoSchedule}
- {condition: InfiniBandUnhealthy, effect: NoSchedule}
{{- end -}}

{{/* The agent's built-in `conditions` (parsers/kinds.py CONDITIONS: the kind table's), which a configuration's
`conditions` replaces whole; tests/deploy/test_shipped_config.py holds them equal. */}}
{{- define "gpu-npd.kindConditionTypes" -}}
[GPUUnhealthy, GPUDegraded, NVLinkUnhealthy, InfiniBandUnhealthy, GPUDriverDegraded, PCIeUnhealthy, KernelDegraded,
 HostMemoryUnhealthy, StorageUnhealthy]
{{- end -}}

{{/* Each built-in check's condition (agent/checks/builtin.py TABLE), which its block's `condition` replaces;
tests/deploy/test_shipped_config.py holds them equal. */}}
{{- define "gpu-npd.checkConditionTypes" -}}
{nvml: GPUConfigMismatch, ib: InfiniBandCheckFailed, dcgm: DCGMDiagFailed, gpu: GPUComputeCheckFailed}
{{- end -}}

{{/* gpu-npd's built-in NodeCondition types (agent/kube/repair.py own_condition_types(): the kind table's, the
built-in checks', the repair profiles' AcceleratedHardwareReady), which the own-node policy admits, sorted; a test
holds them equal. */}}
{{- define "gpu-npd.builtinConditionTypes" -}}
{{- $types := concat (include "gpu-npd.kindConditionTypes" . | fromYamlArray) (values (include "gpu-npd.checkConditionTypes" . | fromYaml)) (list "AcceleratedHardwareReady") -}}
{{- $types | uniq | sortAlpha | toJson -}}
{{- end -}}

{{/* The domains whose keys are someone else's (kubeapi/reserved.py RESERVED_DOMAINS: Kubernetes reserves
kubernetes.io and k8s.io, the vendors' operators and device plugins theirs): a taint_prefix or
repair_annotation_key in one of them, or under it, fails the render with the agent's line; a test holds them equal. */}}
{{- define "gpu-npd.reservedDomains" -}}
[kubernetes.io, k8s.io, nvidia.com, amd.com, intel.com, mellanox.com, habana.ai]
{{- end -}}

{{/* The conditions a pool's taint rules may name, as a JSON list: what the agent's kubernetes.taints check takes
(agent/config.py _kubernetes): the configuration's `conditions` (set whole; else the kind table's) and, with
checks.enabled, each enabled built-in check's condition and, with plugin_configs, rbac.extraConditionTypes (the
conditions of NPD plugin configs, files on the node the chart cannot read). The argument: (list $ $config). */}}
{{- define "gpu-npd.taintableConditions" -}}
{{- $root := index . 0 -}}
{{- $config := index . 1 -}}
{{- $known := include "gpu-npd.kindConditionTypes" $root | fromYamlArray -}}
{{- if hasKey $config "conditions" -}}{{- $known = keys ($config.conditions | default dict) -}}{{- end -}}
{{- $checks := $config.checks | default dict -}}
{{- if $checks.enabled -}}
{{- $rows := include "gpu-npd.checkConditionTypes" $root | fromYaml -}}
{{- range $name, $spec := ($checks.builtin | default dict) -}}
{{- if and (hasKey $rows $name) (kindIs "map" $spec) $spec.enabled -}}
{{- $known = append $known ($spec.condition | default (get $rows $name)) -}}
{{- end -}}
{{- end -}}
{{- if $checks.plugin_configs -}}{{- $known = concat $known ($root.Values.rbac.extraConditionTypes | default list) -}}{{- end -}}
{{- end -}}
{{- $known | uniq | sortAlpha | toJson -}}
{{- end -}}

{{/*
The condition types the rendered configuration adds to the built-in ones, as a sorted JSON list: in every pool's
configuration the keys of conditions (sample_rules and condition_rules may name no other: the agent refuses them)
and a built-in check's condition; and rbac.extraConditionTypes, for those no value shows (an NPD plugin config's,
read from a file on the node). The own-node policy admits them; one it must not admit fails the render: the
kubelet's (kubeapi/reserved.py KUBELET_CONDITIONS), or a name that is no Kubernetes condition type (metav1.Condition's
pattern, kubeapi/reserved.py CONDITION_TYPE, a qualified name's lengths and its MaxLength CONDITION_TYPE_MAX; it is
written into the policy's CEL between quotes); the agent refuses
both alike, and tests/deploy/test_vap_nodes.py holds the list and the pattern here equal to those.
*/}}
{{- define "gpu-npd.extraConditionTypes" -}}
{{- $builtin := include "gpu-npd.builtinConditionTypes" . | fromYamlArray -}}
{{- $named := list -}}  {{- /* [key, type] pairs */}}
{{- range (include "gpu-npd.pools" . | fromYamlArray) -}}
{{- $c := .config -}}
{{- range $t, $_ := ($c.conditions | default dict) -}}{{- $named = append $named (list "conditions" $t) -}}{{- end -}}
{{- range $name, $spec := (($c.checks | default dict).builtin | default dict) -}}
{{- if and (kindIs "map" $spec) (hasKey $spec "condition") -}}
{{- $named = append $named (list (printf "checks.builtin.%s.condition" $name) $spec.condition) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- range ($.Values.rbac.extraConditionTypes | default list) -}}{{- $named = append $named (list "rbac.extraConditionTypes" .) -}}{{- end -}}
{{- $types := list -}}
{{- range $named -}}
{{- $key := index . 0 -}}
{{- $t := toString (index . 1) -}}
{{- if has $t (list "Ready" "MemoryPressure" "DiskPressure" "PIDPressure" "NetworkUnavailable") -}}
{{- fail (printf "%s: condition type %q is the kubelet's; gpu-npd writes only condition types of its own" $key $t) -}}
{{- end -}}
{{- $parts := splitList "/" $t -}}
{{- if or (not (regexMatch `^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$` $t)) (gt (len $t) 316) (gt (len (last $parts)) 63) (and (gt (len $parts) 1) (gt (len (first $parts)) 253)) -}}
{{- fail (printf "%s: %q is no condition type (letters, digits, '-', '_', '.', at most 63, after an optional DNS prefix of at most 253 and '/'; at most 316 in all)" $key $t) -}}
{{- end -}}
{{- if not (has $t $builtin) -}}{{- $types = append $types $t -}}{{- end -}}
{{- end -}}
{{- $types | uniq | sortAlpha | toJson -}}
{{- end -}}

{{/* A list of strings as a CEL list literal: ['a', 'b']. */}}
{{- define "gpu-npd.celStrings" -}}
[{{ range $i, $s := . }}{{ if $i }}, {{ end }}'{{ $s }}'{{ end }}]
{{- end -}}

{{/*
The DaemonSets to render, as a YAML list: one per nodePools entry (its values over the global ones), or one for
the whole install. Each: name ("" for the single DaemonSet), suffix, nodeSelector, mode, taints, config,
kmsgAccess, tolerations, affinity, resources, runtimeClassName. Checks what Helm's schema cannot.
*/}}
{{- define "gpu-npd.pools" -}}
{{- $v := .Values -}}
{{- if hasKey $v.config "mode" -}}{{- fail "set mode, not config.mode" -}}{{- end -}}
{{- if hasKey ($v.config.kubernetes | default dict) "taints" -}}{{- fail "set taints, not config.kubernetes.taints" -}}{{- end -}}
{{- $pools := list -}}
{{- $seen := dict -}}
{{- range ($v.nodePools | default (list (dict "name" ""))) -}}
{{- $p := . -}}
{{- if and $v.nodePools (not (regexMatch "^[a-z0-9]([-a-z0-9]{0,30}[a-z0-9])?$" ($p.name | default ""))) -}}
{{- fail (printf "nodePools: name %q must be a DNS label of at most 32 characters" ($p.name | default "")) -}}
{{- end -}}
{{- if hasKey $seen $p.name -}}{{- fail (printf "nodePools: name %q appears twice" $p.name) -}}{{- end -}}
{{- if and $v.nodePools (not $p.nodeSelector) -}}{{- fail (printf "nodePools[%s]: a nodeSelector is needed (pools must not overlap)" $p.name) -}}{{- end -}}
{{- $selector := mergeOverwrite (deepCopy ($v.nodeSelector | default dict)) ($p.nodeSelector | default dict) -}}
{{- $key := toJson $selector -}}
{{- if hasKey $seen $key -}}{{- fail (printf "nodePools[%s]: the same nodeSelector as pool %q: two agents on one node" $p.name (get $seen $key)) -}}{{- end -}}
{{- $_ := set $seen $p.name true -}}
{{- $_ := set $seen $key $p.name -}}
{{- $pconfig := $p.config | default dict -}}
{{- if or (hasKey $pconfig "mode") (hasKey ($pconfig.kubernetes | default dict) "taints") -}}
{{- fail (printf "nodePools[%s]: set mode and taints on the pool, not in its config" $p.name) -}}
{{- end -}}
{{- $config := mergeOverwrite (deepCopy $v.config) (deepCopy $pconfig) -}}
{{- $taints := ternary $p.taints $v.taints (hasKey $p "taints") -}}
{{- $kube := deepCopy ($config.kubernetes | default dict) -}}
{{- if kindIs "invalid" $taints -}}  {{- /* null: the agent's built-in kubernetes.taints, left out of its config */}}
{{- $taints = include "gpu-npd.builtinTaints" . | fromYamlArray -}}
{{- else -}}
{{- $_ := set $kube "taints" $taints -}}
{{- $_ := set $config "kubernetes" $kube -}}
{{- end -}}
{{- $mode := $p.mode | default $v.mode -}}
{{- if not (has $mode (list "enforce" "observe" "off")) -}}{{- fail (printf "mode %q: expected enforce, observe or off" $mode) -}}{{- end -}}
{{- $where := ternary (printf "nodePools[%s]: " $p.name) "" (ne ($p.name | default "") "") -}}
{{- /* Each taint's key, in every mode (the agent checks them at start whatever its mode, agent/kube/settings.py
check): the prefix + its condition's name after the condition's own domain, as agent/kube/desired.py taint_key
makes it. The prefix's default is parsers/kinds.py TAINT_PREFIX (a test holds them equal). A key that is no
qualified name (a prefix of at most 253 characters, a name of at most 63: kubeapi/reserved.py unqualified; the
schema holds the prefix's pattern, templates/_helpers.tpl gpu-npd.extraConditionTypes a configured condition's), or
one two conditions or two rules share, fails the render with the agent's message: else the DaemonSet crash-loops on every node. */ -}}
{{- range $k := list "taint_prefix" "repair_annotation_key" -}}
{{- $val := toString (get $kube $k) -}}
{{- $domain := ternary (lower (first (splitList "/" $val))) "" (contains "/" $val) -}}
{{- range $owned := include "gpu-npd.reservedDomains" $ | fromYamlArray -}}
{{- if and (hasKey $kube $k) (or (eq $domain $owned) (hasSuffix (printf ".%s" $owned) $domain)) -}}
{{- fail (printf "%sconfig.kubernetes.%s: '%s' is in %s, which Kubernetes or a vendor's components own; gpu-npd writes only keys of its own (e.g. gpu-npd.io/)" $where $k $val $owned) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $prefix := $kube.taint_prefix | default "gpu-npd.io/" -}}
{{- $keys := list -}}  {{- /* [key, effect] pairs */}}
{{- $seenKeys := dict -}}
{{- $taintable := include "gpu-npd.taintableConditions" (list $ $config) | fromJsonArray -}}
{{- range $i, $t := $taints -}}
{{- if not (has (toString $t.condition) $taintable) -}}
{{- fail (printf "%staints[%d].condition: expected one of %s, got '%s'" $where $i (join ", " $taintable) (toString $t.condition)) -}}
{{- end -}}
{{- $name := last (splitList "/" (toString $t.condition)) -}}
{{- $key := printf "%s%s" $prefix $name -}}
{{- if gt (len (trimSuffix "/" $prefix)) 253 -}}
{{- fail (printf "%staints[%d].condition: taint key '%s' is no qualified name: its prefix '%s' is no DNS subdomain of at most 253 characters (config.kubernetes.taint_prefix)" $where $i $key (trimSuffix "/" $prefix)) -}}
{{- end -}}
{{- if gt (len $name) 63 -}}
{{- fail (printf "%staints[%d].condition: taint key '%s' is no qualified name: its name '%s' is not 1 to 63 of [A-Za-z0-9._-], alphanumeric at both ends" $where $i $key $name) -}}
{{- end -}}
{{- if hasKey $seenKeys $key -}}
{{- $first := get $seenKeys $key -}}  {{- /* [its condition, its index] */}}
{{- if ne (index $first 0) (toString $t.condition) -}}
{{- fail (printf "%staints[%d].condition: '%s' and '%s' would share the taint key '%s'; rename one" $where $i (toString $t.condition) (index $first 0) $key) -}}
{{- end -}}
{{- fail (printf "%staints[%d].condition: '%s' has a taint rule already (kubernetes.taints[%d]); one rule per condition: keep the one whose effect and min_severity you want" $where $i (toString $t.condition) (index $first 1)) -}}
{{- end -}}
{{- $_ := set $seenKeys $key (list (toString $t.condition) $i) -}}
{{- $keys = append $keys (list $key ($t.effect | default "NoSchedule")) -}}
{{- end -}}
{{- $tolerations := ternary $p.tolerations $v.tolerations (hasKey $p "tolerations") -}}
{{- if eq $mode "enforce" -}}
{{- /* Each of gpu-npd's own taints tolerated (its value is the reason: only operator Exists tolerates every one),
or the DaemonSet controller never puts the agent back on a node it tainted (an upgrade, an eviction; NoExecute
evicts it at once) and nothing clears the taint. */ -}}
{{- range $keys -}}
{{- $key := index . 0 -}}
{{- $effect := index . 1 -}}
{{- $tolerated := false -}}
{{- range $tol := ($tolerations | default list) -}}
{{- if and (eq ($tol.operator | default "Equal") "Exists") (or (not $tol.key) (eq $tol.key $key)) (or (not $tol.effect) (eq $tol.effect $effect)) -}}
{{- $tolerated = true -}}
{{- end -}}
{{- end -}}
{{- if and (not $tolerated) (ne $effect "PreferNoSchedule") -}}  {{- /* that one keeps no pod off a node */}}
{{- fail (printf "%stolerations do not tolerate gpu-npd's taint %s:%s: the agent would not come back to a node it tainted; add {key: %s, operator: Exists} (or {operator: Exists})" $where $key $effect $key) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $access := $p.kmsgAccess | default $v.kmsgAccess -}}
{{- if not (has $access (list "privileged" "unprivileged")) -}}{{- fail (printf "kmsgAccess %q: expected privileged or unprivileged" $access) -}}{{- end -}}
{{- $pools = append $pools (dict
      "name" $p.name
      "suffix" (ternary (printf "-%s" $p.name) "" (ne ($p.name | default "") ""))
      "nodeSelector" $selector
      "mode" $mode
      "config" $config
      "kmsgAccess" $access
      "tolerations" $tolerations
      "affinity" (ternary $p.affinity $v.affinity (hasKey $p "affinity"))
      "resources" (ternary $p.resources $v.resources (hasKey $p "resources"))
      "runtimeClassName" (ternary $p.runtimeClassName $v.runtimeClassName (hasKey $p "runtimeClassName"))) -}}
{{- end -}}
{{- toYaml $pools -}}
{{- end -}}

{{/* The budgets' ConfigMaps every pool's agents write (kubernetes.taint_budget_configmap, dra_budget_configmap):
the names the Role and the cleanup hook grant, as a JSON list. A budget in another namespace than the release's
fails the render: the Role lives in the release's namespace. */}}
{{- define "gpu-npd.budgetConfigMaps" -}}
{{- $names := list -}}
{{- range (include "gpu-npd.pools" . | fromYamlArray) -}}
{{- $kube := .config.kubernetes | default dict -}}
{{- range $key, $default := dict "taint_budget_configmap" "gpu-npd-taint-budget" "dra_budget_configmap" "gpu-npd-dra-budget" -}}
{{- $ref := get $kube $key | default $default -}}
{{- $parts := splitList "/" $ref -}}
{{- if and (eq (len $parts) 2) (ne (first $parts) $.Release.Namespace) -}}
{{- fail (printf "config.kubernetes.%s %q: the budget's ConfigMap must be in the release's namespace %q (its Role is)" $key $ref $.Release.Namespace) -}}
{{- end -}}
{{- $names = append $names (last $parts) -}}
{{- end -}}
{{- end -}}
{{- $names | uniq | sortAlpha | toJson -}}
{{- end -}}

{{/* The container's security context for a kmsg access mode (docs/install.md "Kernel log access"). */}}
{{- define "gpu-npd.securityContext" -}}
{{- if eq . "privileged" -}}
privileged: true
runAsUser: 0
readOnlyRootFilesystem: true
seccompProfile: {type: RuntimeDefault}
{{- else -}}
privileged: false
allowPrivilegeEscalation: false
runAsUser: 0
readOnlyRootFilesystem: true
capabilities:
  drop: [ALL]
  add: [SYSLOG, DAC_READ_SEARCH]
seccompProfile: {type: RuntimeDefault}
{{- end -}}
{{- end -}}
