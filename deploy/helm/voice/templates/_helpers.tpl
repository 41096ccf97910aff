{{/* The release's name for its objects, cut to Kubernetes' 63 characters. */}}
{{- define "voice.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "voice.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Selector labels of one component: (dict "root" $ "component" "api"). */}}
{{- define "voice.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "voice.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "voice.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The image of one component: (dict "root" $ "component" "api"). */}}
{{- define "voice.image" -}}
{{- printf "%s-%s:%s" .root.Values.image.repository .component (default .root.Chart.AppVersion .root.Values.image.tag) -}}
{{- end -}}

{{- define "voice.mediaPublicUrl" -}}
{{- if .Values.mediaPublicUrl -}}
{{- .Values.mediaPublicUrl -}}
{{- else -}}
{{- printf "%s/media/twilio" (regexReplaceAll "^http" (trimSuffix "/" .Values.publicUrl) "ws") -}}
{{- end -}}
{{- end -}}

{{/*
The environment of every service: the settings ConfigMap, then each secret key from the Secret by
reference (never its value), required ones first.
*/}}
{{- define "voice.env" -}}
envFrom:
  - configMapRef:
      name: {{ include "voice.fullname" . }}-env
env:
{{- range (list "DATABASE_URL" "JWT_SECRET" "SECRETS_KEY") }}
  - name: {{ . }}
    valueFrom:
      secretKeyRef:
        name: {{ $.Values.secrets.existingSecret }}
        key: {{ . }}
{{- end }}
{{- range .Values.secrets.optionalKeys }}
  - name: {{ . }}
    valueFrom:
      secretKeyRef:
        name: {{ $.Values.secrets.existingSecret }}
        key: {{ . }}
        optional: true
{{- end }}
{{- end -}}

{{/* Whether recordings go to a volume (no bucket): the api serves them and the media server writes them. */}}
{{- define "voice.recordingsVolume" -}}
{{- if not .Values.recordings.s3.bucket -}}true{{- end -}}
{{- end -}}

{{/*
One service's Deployment: (dict "root" $ "component" "api" "port" 3000 "portName" "http"). Non-root and
read-only, with its resources, its probes on /healthz, and its SIGTERM drain given time to finish.
*/}}
{{- define "voice.deployment" -}}
{{- $root := .root -}}
{{- $values := index $root.Values .component -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "voice.fullname" $root }}-{{ .component }}
  labels:
    {{- include "voice.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
spec:
  {{- if not $values.autoscaling.enabled }}
  replicas: {{ $values.replicas }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "voice.selector" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "voice.selector" . | nindent 8 }}
      annotations:
        checksum/env: {{ include (print $root.Template.BasePath "/configmap.yaml") $root | sha256sum }}
    spec:
      serviceAccountName: {{ include "voice.serviceAccountName" $root }}
      automountServiceAccountToken: false
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- toYaml $root.Values.podSecurityContext | nindent 8 }}
      terminationGracePeriodSeconds: {{ add $values.terminationGracePeriodSeconds $values.preStopSeconds }}
      containers:
        - name: {{ .component }}
          image: {{ include "voice.image" . }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          securityContext:
            {{- toYaml $root.Values.securityContext | nindent 12 }}
          ports:
            - name: {{ .portName }}
              containerPort: {{ .port }}
              protocol: TCP
          {{- include "voice.env" $root | nindent 10 }}
          {{- if eq .component "worker" }}
            - name: WORKER_HEALTH_PORT
              value: {{ .port | quote }}
          {{- end }}
          {{- if eq .component "media" }}
            - name: MEDIA_PORT
              value: {{ .port | quote }}
          {{- end }}
          {{- if eq .component "api" }}
            - name: PORT
              value: {{ .port | quote }}
          {{- end }}
          # Ready when /healthz answers (the api's checks the database and Temporal); alive while the
          # process accepts connections, so an outage of Postgres does not restart every pod.
          startupProbe:
            httpGet: { path: /healthz, port: {{ .portName }} }
            periodSeconds: 2
            failureThreshold: 60
          readinessProbe:
            httpGet: { path: /healthz, port: {{ .portName }} }
            periodSeconds: 5
            timeoutSeconds: 3
            failureThreshold: 2
          livenessProbe:
            tcpSocket: { port: {{ .portName }} }
            periodSeconds: 10
            timeoutSeconds: 5
            failureThreshold: 6
          {{- if $values.preStopSeconds }}
          lifecycle:
            preStop:
              exec:
                command: ["sleep", "{{ $values.preStopSeconds }}"]
          {{- end }}
          resources:
            {{- toYaml $values.resources | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- if and (include "voice.recordingsVolume" $root) (has .component (list "api" "media")) }}
            - name: recordings
              mountPath: /recordings
            {{- end }}
      volumes:
        - name: tmp
          emptyDir: {}
        {{- if and (include "voice.recordingsVolume" $root) (has .component (list "api" "media")) }}
        - name: recordings
          persistentVolumeClaim:
            claimName: {{ include "voice.fullname" $root }}-recordings
        {{- end }}
      {{- with $values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $values.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end -}}
