// The D-Bus API coolhandd serves and coolhandctl calls: names, signatures
// and error names, in one place so the two cannot drift. docs/daemon.md
// ("D-Bus") describes each member. Header-only, no library dependency.
//
// Temperatures travel as int64 m°C; a D-Bus struct cannot hold an optional,
// so each optional value is a (known: b, value: x) pair.
#pragma once

namespace coolhand::dbus_api {

inline constexpr const char* kBusName = "org.coolhand.Thermal1";
inline constexpr const char* kObjectPath = "/org/coolhand/Thermal1";
inline constexpr const char* kInterface = "org.coolhand.Thermal1";

// Methods.
//   GetStatus() -> (severity s, profile s, zones a(ssbxbx), sensors a(ssbbx),
//                   devices a(suub), counters a{st})
//     zone:   name, severity, temperature known, temperature m°C, next limit known, next limit m°C
//     sensor: name, kind ("physical", "weighted_sum", ...), lost, value known, value m°C
//     device: name, level, max level, applied (in effect on hardware)
//   Reload()            root only; same path as SIGHUP
//   SetProfile(name s)  root only
//   Explain(device s) -> (now_ms x, devices a(suussssbxsbxbx))   (issue 11)
//     why each device is at its level, from the last engine step; device ""
//     means every device, an unknown one is UnknownDevice. Open to every caller.
//     device: name, level, max level, reason ("controller", "safe", "forced",
//             "released"), controller, controller kind, input sensor, input known,
//             input m°C, limit kind ("threshold", "setpoint", "table row"), limit
//             known, limit m°C, since known, since (monotonic ms, like now_ms)
inline constexpr const char* kGetStatus = "GetStatus";
inline constexpr const char* kExplain = "Explain";
inline constexpr const char* kReload = "Reload";
inline constexpr const char* kSetProfile = "SetProfile";
// Flight recorder (issue 11), open to every caller (like GetStatus):
//   Record(fd h) -> (records t, lost t)  write a whole recording into fd
//                   (the caller opened it, so its permissions decide where)
//   Follow() -> (fd h)  a SOCK_SEQPACKET socket: one message with a recording
//                   header (no records), then messages of 32-byte records
//                   as they are made (docs/recording-format.md, "Follow")
inline constexpr const char* kRecord = "Record";
inline constexpr const char* kFollow = "Follow";

// Properties (read-only). The state that PropertiesChanged reports: one
// signal per change of any of these, carrying the changed ones only.
//   Version s, Severity s, Profile s, ZoneSeverities a{ss}, Levels a{su}, LostSensors as
inline constexpr const char* kPropVersion = "Version";
inline constexpr const char* kPropSeverity = "Severity";
inline constexpr const char* kPropProfile = "Profile";
inline constexpr const char* kPropZoneSeverities = "ZoneSeverities";
inline constexpr const char* kPropLevels = "Levels";
inline constexpr const char* kPropLostSensors = "LostSensors";

// Errors.
inline constexpr const char* kErrorAccessDenied = "org.freedesktop.DBus.Error.AccessDenied";
inline constexpr const char* kErrorReloadFailed = "org.coolhand.Thermal1.Error.ReloadFailed";
inline constexpr const char* kErrorUnknownProfile = "org.coolhand.Thermal1.Error.UnknownProfile";
inline constexpr const char* kErrorUnknownDevice = "org.coolhand.Thermal1.Error.UnknownDevice";
inline constexpr const char* kErrorFailed = "org.freedesktop.DBus.Error.Failed";
inline constexpr const char* kErrorRecordFailed = "org.coolhand.Thermal1.Error.RecordFailed";

}  // namespace coolhand::dbus_api
