# Rewrite a ~/ path to an absolute one with overrideInput (SDK example PreToolUse_ModifyInput).
input=$(cat)
tool=$(echo "$input" | jq -r '.tool_call.name')
file=$(echo "$input" | jq -r '.tool_call.input.filePath')
if [ "$tool" = "read_files" ] && [[ $file == "~/"* ]]; then
  normalized="$HOME/${file#\~/}"
  jq -cn --arg p "$normalized" '{overrideInput: {filePath: $p}}'
else
  echo '{}'
fi
