#!/usr/bin/env bash
# Lifecycle log (SDK example TaskStart.sh): observation only.
input=$(cat)
echo "agent_start task=$(echo "$input" | jq -r '.taskId // "?"')" >&2
echo '{}'
