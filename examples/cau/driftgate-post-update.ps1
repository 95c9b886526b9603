<#
.SYNOPSIS
    Cluster-Aware Updating PostUpdateScript: gate this node after CAU updated and restarted it.

.DESCRIPTION
    CAU runs this script on each node after its updates were installed and the node restarted,
    before its roles move back. driftgate (`gate post`) compares the node three ways - baseline,
    before the update, now - and throws when the update changed a setting that keeps storage
    traffic lossless (the NIC's DCBX mode, PFC, ...), when a setting is staged for the next
    reboot, or when the node cannot be read completely. CAU then fails the node and, with
    -MaxFailedNodes 0, stops before the next node is updated. A passing node's capture becomes
    its new baseline (--promote).

    Uses the run id the PreUpdateScript wrote; see driftgate-pre-update.ps1 for registering both.

.EXAMPLE
    .\driftgate-post-update.ps1 -Collector gate@collector01
#>
[CmdletBinding()]
param(
    # ssh target of the collector that runs driftgate; empty: run driftgate here.
    [string] $Collector = $env:DRIFTGATE_COLLECTOR,
    # The driftgate command (on the collector, or here).
    [string] $Driftgate = $(if ($env:DRIFTGATE_COMMAND) { $env:DRIFTGATE_COMMAND } else { 'driftgate' }),
    # The node's name in the inventory (default: this computer's name, lower case).
    [string] $Node,
    # Where the PreUpdateScript left the run id.
    [string] $RunIdFile,
    # Do not make the passing capture the new baseline.
    [switch] $NoPromote,
    # More driftgate arguments, e.g. '--repo', 'D:\baselines'.
    [string[]] $ExtraArguments = @()
)
$ErrorActionPreference = 'Stop'
# Defaults computed here, not in param(): off Windows (a dry run) these variables are unset.
if (-not $Node) {
    $Node = $(if ($env:COMPUTERNAME) { $env:COMPUTERNAME } else { [System.Net.Dns]::GetHostName() }).ToLowerInvariant()
}
if (-not $RunIdFile) {
    $dataDir = $(if ($env:ProgramData) { $env:ProgramData } else { [System.IO.Path]::GetTempPath() })
    $RunIdFile = Join-Path (Join-Path $dataDir 'driftgate') "run-id-$Node"
}

if (-not (Test-Path $RunIdFile)) {
    throw "driftgate: no run id at $RunIdFile - did the PreUpdateScript run on $Node?"
}
$RunId = (Get-Content -Path $RunIdFile -TotalCount 1).Trim()

$arguments = @('gate', 'post', '--run', $RunId)
if (-not $NoPromote) { $arguments += '--promote' }
$arguments += $ExtraArguments + @($Node)
# driftgate writes progress and warnings to standard error. Windows PowerShell 5.1 (and a
# remoting session, as CAU uses) turns each such line into an error record, which 'Stop'
# would make fatal before the exit code is read: merge the streams and judge by the code.
$ErrorActionPreference = 'Continue'
# A command that cannot start sets no exit code: never read an earlier one as this one's.
$global:LASTEXITCODE = -1
if ($Collector) {
    # ssh joins its arguments into one remote command line: quote each for the remote shell.
    $remote = (@($Driftgate) + $arguments | ForEach-Object { "'" + ($_ -replace "'", "'\''") + "'" }) -join ' '
    & ssh -o BatchMode=yes $Collector $remote 2>&1 | ForEach-Object { "$_" }
} else {
    & $Driftgate @arguments 2>&1 | ForEach-Object { "$_" }
}
$code = $LASTEXITCODE
$ErrorActionPreference = 'Stop'

switch ($code) {
    0 {
        Remove-Item -Path $RunIdFile -ErrorAction SilentlyContinue
        Write-Output "driftgate: $Node passes the post-update gate (run $RunId)"
    }
    1 { throw "driftgate: the update changed $Node's lossless-storage settings (run $RunId): stopping the updating run" }
    3 { throw "driftgate: $Node could not be read completely after the update (run $RunId): stopping the updating run" }
    default { throw "driftgate gate post failed with exit code $code (run $RunId): see its message above" }
}
