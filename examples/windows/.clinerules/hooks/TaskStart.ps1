# TaskStart hook for Windows (PowerShell 5.1 and 7).
# The first three lines make PowerShell read its JSON input as UTF-8 and write UTF-8 without
# a byte-order mark, whatever the console code page is. Keep them at the top of every hook.
$utf8 = New-Object System.Text.UTF8Encoding $false
[Console]::InputEncoding = $utf8
[Console]::OutputEncoding = $utf8
$OutputEncoding = $utf8

# Read stdin through [Console]::In (not $input, which PowerShell 5.1 decodes with the OEM code page).
$event = [Console]::In.ReadToEnd() | ConvertFrom-Json

$root = if ($event.workspaceRoots) { $event.workspaceRoots[0] } else { (Get-Location).Path }
$context = "Project root: $root"
if (Test-Path (Join-Path $root 'tsconfig.json')) { $context += '. TypeScript project: write .ts files.' }

# Logs go to stderr; the JSON verdict is the last thing on stdout.
[Console]::Error.WriteLine("[TaskStart] $($event.taskStart.task)")
[Console]::Out.Write((@{ cancel = $false; contextModification = $context } | ConvertTo-Json -Compress))
