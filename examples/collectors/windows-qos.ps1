# driftgate Windows collector: NIC QoS/DCB state as one JSON document on standard output.
#
# Reads raw CIM fields, not the formatted strings Get-NetAdapterQos prints, so the output is
# the same on every Windows version. Windows PowerShell 5.1 writes enums as numbers; driftgate
# maps them (DcbxSupport flags None 0, CEE 1, IEEE 2; TSA Strict 0, CBS 1, ETS 2; classification
# ProtocolSelector Default 1, TCP 2, UDP 3, TCP/UDP 4, Ethertype 5, NetDirect 6). RemoteSettings
# is what the link partner advertised over DCBX.
#
# driftgate runs this itself over ssh (`--source windows=ssh://host`). To collect by hand for
# `--source windows=dir:FOLDER`:
#   powershell -NoProfile -File windows-qos.ps1 | Out-File -Encoding utf8 FOLDER\windows-qos.json
# (a plain `>` in Windows PowerShell writes UTF-16; driftgate reads that too).
$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue'

function Select-Capabilities($c) {
    if ($null -eq $c) { return $null }
    $c | Select-Object CeeDcbxSupported, IeeeDcbxSupported, NumberOfTrafficClasses,
        NumberOfEtsCapableTrafficClasses, NumberOfPfcEnabledTrafficClasses
}

function Select-Settings($s) {
    if ($null -eq $s) { return $null }
    $s | Select-Object TransmissionSelectionEnabled, FlowControlEnabled,
        @{ n = 'PriorityAssignmentTable'; e = { @($_.PriorityAssignmentTable) } },
        @{ n = 'TsaAssignmentTable'; e = { @($_.TsaAssignmentTable) } },
        @{ n = 'BandwidthAssignmentTable'; e = { @($_.BandwidthAssignmentTable) } },
        @{ n = 'PriorityFlowControlEnableArray'; e = { @($_.PriorityFlowControlEnableArray) } },
        @{ n = 'ClassificationTable'; e = { @($_.ClassificationTable |
            Select-Object ProtocolSelector, ProtocolSpecificValue, Priority) } }
}

$adapters = @(Get-NetAdapter -Physical | Select-Object Name, InterfaceDescription, MacAddress,
    PermanentAddress, DriverVersionString, DriverProvider, ifIndex)

$qos = @(Get-CimInstance -Namespace root/StandardCimv2 -ClassName MSFT_NetAdapterQosSettingData |
    Select-Object Name, Enabled,
        @{ n = 'Hardware'; e = { Select-Capabilities $_.HardwareCapabilities } },
        @{ n = 'Current'; e = { Select-Capabilities $_.CurrentCapabilities } },
        @{ n = 'Operational'; e = { Select-Settings $_.OperationalSettings } },
        @{ n = 'Remote'; e = { Select-Settings $_.RemoteSettings } })

$flowControl = @(Get-NetQosFlowControl | Select-Object Priority, Enabled, PolicySet, IfAlias)
$adapterFlowControl = @($adapters | ForEach-Object {
    Get-NetQosFlowControl -InterfaceAlias $_.Name -ErrorAction SilentlyContinue |
        Select-Object Priority, Enabled, PolicySet, IfAlias })
$trafficClasses = @(Get-NetQosTrafficClass | Select-Object Name, Algorithm, BandwidthPercentage,
    @{ n = 'Priority'; e = { @($_.Priority) } }, PolicySet, IfAlias)
$policies = @(Get-NetQosPolicy | Select-Object Name, PriorityValue8021Action,
    NetDirectPortMatchCondition, Template, IPProtocolMatchCondition, IPDstPortMatchCondition)
$dcbx = @(Get-NetQosDcbxSetting | Select-Object Willing, PolicySet, IfAlias)
$adapterDcbx = @($adapters | ForEach-Object {
    Get-NetQosDcbxSetting -InterfaceAlias $_.Name -ErrorAction SilentlyContinue |
        Select-Object Willing, PolicySet, IfAlias })
$rdma = @(Get-NetAdapterRdma | Select-Object Name, Enabled)

# Piped, never passed by argument: ConvertTo-Json drops properties of objects given as an
# argument (PowerShell issue #24554).
[pscustomobject]@{
    Schema             = 'driftgate.windows/v1'
    Adapters           = $adapters
    AdapterQos         = $qos
    FlowControl        = $flowControl + $adapterFlowControl
    TrafficClasses     = $trafficClasses
    Policies           = $policies
    DcbxSettings       = $dcbx + $adapterDcbx
    Rdma               = $rdma
} | ConvertTo-Json -Depth 6
