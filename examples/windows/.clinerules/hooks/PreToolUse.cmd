@echo off
rem PreToolUse hook as a .cmd file (no PowerShell needed). Switch the console to UTF-8 so
rem non-ASCII text passes through intact, keep logs on stderr, print the JSON verdict last.
chcp 65001 >nul
rem Read the input without interpreting it: hand it to a real program (here: node).
node -e "let d='';process.stdin.on('data',c=>d+=c).on('end',()=>{const e=JSON.parse(d);const p=((e.preToolUse||{}).parameters||{}).path||'';console.error('[PreToolUse] '+p);console.log(JSON.stringify(p.endsWith('.js')?{cancel:true,errorMessage:'Use .ts files in this project'}:{cancel:false}))})"
exit /b %ERRORLEVEL%
