<#
.SYNOPSIS
    Writes regtool's audit of this machine's performance counter name
    database for windows_exporter's textfile collector, or registers
    itself as an hourly scheduled task that does.

.DESCRIPTION
    Runs `regtool --store live audit --textfile FILE`: FILE is written to
    a temporary file beside it and renamed over it, so the collector reads
    the last whole file. regtool exits 0, 1 or 2 by the worst finding
    (the file written in each case: the metrics say what was found) and
    3 when the file could not be written (it is then left as it was; a
    rename refused because the collector had the file open is retried at
    the next run). regtool's standard error (why a store could not be
    read) is appended to the log.

.EXAMPLE
    .\regtool-textfile.ps1 -Register
    As an administrator: the task "regtool audit for Prometheus", hourly,
    as SYSTEM (reading Perflib's values needs no more, writing the
    textfile folder does).

.EXAMPLE
    .\regtool-textfile.ps1
    One run now.

.NOTES
    The same without PowerShell:
    schtasks /Create /TN "regtool audit for Prometheus" /SC HOURLY /RU SYSTEM /TR "\"C:\Program Files\regtool\regtool.exe\" --store live audit --textfile \"C:\Program Files\windows_exporter\textfile_inputs\regtool.prom\""
#>
param(
    [string]$Regtool = (Join-Path $env:ProgramFiles 'regtool\regtool.exe'),
    [string]$TextfileDir = (Join-Path $env:ProgramFiles 'windows_exporter\textfile_inputs'),
    [string]$Log = (Join-Path $env:ProgramData 'regtool\audit-textfile.log'),
    [switch]$Register
)
$ErrorActionPreference = 'Stop'

if ($Register) {
    $arguments = '-NoProfile -NonInteractive -ExecutionPolicy Bypass ' +
        "-File `"$PSCommandPath`" -Regtool `"$Regtool`" " +
        "-TextfileDir `"$TextfileDir`" -Log `"$Log`""
    $action = New-ScheduledTaskAction -Execute 'powershell.exe' -Argument $arguments
    $trigger = New-ScheduledTaskTrigger -Once -At (Get-Date) `
        -RepetitionInterval (New-TimeSpan -Hours 1)
    $principal = New-ScheduledTaskPrincipal -UserId 'SYSTEM' `
        -LogonType ServiceAccount -RunLevel Highest
    $settings = New-ScheduledTaskSettingsSet -MultipleInstances IgnoreNew `
        -ExecutionTimeLimit (New-TimeSpan -Minutes 10)
    Register-ScheduledTask -TaskName 'regtool audit for Prometheus' `
        -Action $action -Trigger $trigger -Principal $principal `
        -Settings $settings -Force | Out-Null
    Write-Output "registered: $Regtool writes $TextfileDir\regtool.prom hourly"
    exit 0
}

New-Item -ItemType Directory -Force -Path (Split-Path $Log) | Out-Null
$file = Join-Path $TextfileDir 'regtool.prom'
$errors = [System.IO.Path]::GetTempFileName()
# Start-Process rather than 2>>: with ErrorActionPreference Stop,
# PowerShell 5 turns a native program's standard error into an exception.
$p = Start-Process -FilePath $Regtool -NoNewWindow -Wait -PassThru `
    -RedirectStandardError $errors `
    -ArgumentList @('--store', 'live', 'audit', '--textfile', "`"$file`"")
$stamp = Get-Date -Format o
Get-Content $errors | ForEach-Object { Add-Content $Log "$stamp $_" }
Remove-Item $errors
if ($p.ExitCode -gt 2) {
    Add-Content $Log "$stamp regtool exited $($p.ExitCode): $file left as it was"
    exit $p.ExitCode
}
exit 0
