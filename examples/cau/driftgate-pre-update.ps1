<#
.SYNOPSIS
    Cluster-Aware Updating PreUpdateScript: gate this node before CAU updates it.

.DESCRIPTION
    CAU runs this script on each node before it drains and updates the node. It asks driftgate
    (`gate pre`) whether the node is at its known-good baseline and completely readable (BMC
    and OS). Anything else - drift from before the update, an unreachable BMC, a partial
    capture - throws, and CAU fails the node instead of flashing it (with -MaxFailedNodes 0
    the whole updating run stops).

    driftgate runs on a collector that holds the baseline store and the inventory and can
    reach the BMCs (-Collector user@host, over Windows' OpenSSH client with a key of the
    account CAU runs the script as: BatchMode never prompts), or on this machine when
    -Collector is empty. The run id is written to $env:ProgramData\driftgate\run-id-<node> for
    the PostUpdateScript of the same node.

.EXAMPLE
    # Register both scripts for every updating run of the cluster (self-updating mode):
    Set-CauClusterRole -ClusterName azl-cluster-a -Force `
        -PreUpdateScript  \\fileserver\driftgate\driftgate-pre-update.ps1 `
        -PostUpdateScript \\fileserver\driftgate\driftgate-post-update.ps1 `
        -MaxFailedNodes 0

.EXAMPLE
    # Or for one remote-updating run:
    Invoke-CauRun -ClusterName azl-cluster-a -MaxFailedNodes 0 -RequireAllNodesOnline -Force `
        -PreUpdateScript  \\fileserver\driftgate\driftgate-pre-update.ps1 `
        -PostUpdateScript \\fileserver\driftgate\driftgate-post-update.ps1
#>
[CmdletBinding()]
param(
    # ssh target of the collector that runs driftgate; empty: run driftgate here.
    [string] $Collector = $env:DRIFTGATE_COLLECTOR,
    # The driftgate command (on the collector, or here).
    [string] $Driftgate = $(if ($env:DRIFTGATE_COMMAND) { $env:DRIFTGATE_COMMAND } else { 'driftgate' }),
    # The node's name in the inventory (default: this computer's name, lower case).
    [string] $Node,
    # Run id shared with the PostUpdateScript (default: cau-<node>-<UTC time>).
    [string] $RunId,
    # Where the run id is kept for the PostUpdateScript.
    [string] $RunIdFile,
    # More driftgate arguments, e.g. '--repo', 'D:\baselines' or '--allow-file', 'change.toml'.
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

if (-not $RunId) { $RunId = "cau-$Node-$((Get-Date).ToUniversalTime().ToString('yyyyMMddTHHmmssZ'))" }
$arguments = @('gate', 'pre', '--run', $RunId) + $ExtraArguments + @($Node)
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

New-Item -ItemType Directory -Force -Path (Split-Path $RunIdFile) | Out-Null
Set-Content -Path $RunIdFile -Value $RunId -Encoding ascii

switch ($code) {
    0 { Write-Output "driftgate: $Node passes the pre-update gate (run $RunId)" }
    1 { throw "driftgate: $Node has drifted from its baseline before the update (run $RunId): not updating it" }
    3 { throw "driftgate: $Node could not be read completely before the update (run $RunId): not updating it" }
    default { throw "driftgate gate pre failed with exit code $code (run $RunId): see its message above" }
}
