# Require review for writes to critical files (SDK example PreToolUse_RequireReview.sh).
# No #! line and no exec bit: the CLI profile runs .bash files with bash.
input=$(cat)
tool=$(echo "$input" | jq -r '.tool_call.name')
file=$(echo "$input" | jq -r '.tool_call.input.filePath // empty')
if { [ "$tool" = "editor" ] || [ "$tool" = "write_file" ]; } && [[ $file =~ (package\.json|\.env|secrets|tsconfig) ]]; then
  echo '{"review": true, "context": "This will modify a critical file"}'
else
  echo '{}'
fi
