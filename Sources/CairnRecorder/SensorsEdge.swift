import CairnDevice

/// The Bluetooth LE sensors' transport is the record loop's sensors edge.
extension BluetoothSensors: LoopSensors {}
