#!/usr/bin/env python3
# Python context hook (SDK example PreToolUse.py).
import json
import sys

event = json.load(sys.stdin)
tool_name = event.get("tool_call", {}).get("name", "")
tool_input = event.get("tool_call", {}).get("input", {})
if tool_name == "read_files" and tool_input.get("filePath", "").endswith(".test.ts"):
    print(json.dumps({"context": "This is a test file"}))
else:
    print(json.dumps({}))
