// Flight recording -> CSV tables (recording_export.h).
#include "coolhand/sim/recording_export.h"

#include <fmt/format.h>

#include <string_view>
#include <vector>

#include "coolhand/recorder/layout.h"

namespace coolhand::sim {

namespace {

// The name table a field indexes, if any. Slots are not names: slot s is
// whatever sensor the segment's slot_map says.
const std::vector<std::string>* names_for(const recorder::Recording& rec, std::string_view kind,
                                          std::string_view field) {
  if (field == "device") return &rec.meta.devices;
  if (field == "sensor") return &rec.meta.sensors;
  if (field == "zone") return &rec.meta.zones;
  if (field == "cause") return &rec.meta.controllers;
  if (field == "profile") return &rec.meta.profiles;
  if (kind == "engine_event" && field == "index") return nullptr;  // a zone or a sensor
  return nullptr;
}

std::string csv_cell(std::string_view s) {
  if (s.find_first_of(",\"\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::map<std::string, std::string> export_tables(const recorder::Recording& rec) {
  std::map<std::string, std::string> files;
  std::map<std::uint16_t, const recorder::FileKind*> kinds;
  for (const auto& k : rec.layout) kinds[k.kind] = &k;
  for (const recorder::Record& r : rec.records) {
    const auto it = kinds.find(r.kind);
    if (it == kinds.end()) continue;  // the reader rejects records of kinds the table lacks
    const recorder::FileKind& k = *it->second;
    const std::string file = k.name + ".csv";
    auto [pos, fresh] = files.try_emplace(file);
    std::string& out = pos->second;
    if (fresh) {
      std::string header;
      for (const auto& f : k.fields) {
        if (f.name == "kind") continue;
        header += (header.empty() ? "" : ",") + f.name;
        if (names_for(rec, k.name, f.name)) header += "," + f.name + "_name";
      }
      out = header + "\n";
    }
    std::string row;
    for (const auto& f : k.fields) {
      if (f.name == "kind") continue;
      const std::int64_t v =
          recorder::field_value(r, recorder::FieldLayout{f.name, f.type, f.offset});
      std::string cell = f.type == recorder::FieldType::u64
                             ? fmt::format("{}", static_cast<std::uint64_t>(v))
                             : fmt::format("{}", v);
      // A temperature slot holding kNoValue is an empty cell.
      if (f.name.ends_with("_mc") && v == recorder::kNoValue) cell.clear();
      row += (row.empty() ? "" : ",") + cell;
      if (const auto* names = names_for(rec, k.name, f.name)) {
        const auto i = static_cast<std::uint64_t>(v);
        row += "," + (i < names->size() ? csv_cell((*names)[i]) : std::string());
      }
    }
    out += row + "\n";
  }
  std::string head = "key,value\n";
  head += fmt::format("version,{}.{}\n", rec.version_major, rec.version_minor);
  head += fmt::format("capacity,{}\ntotal,{}\nlost,{}\n", rec.capacity, rec.total, rec.lost);
  head += fmt::format("policy_hash,{:016x}\n", rec.policy_hash);
  head += "boot_id," + csv_cell(rec.meta.boot_id) + "\n";
  head += "daemon_version," + csv_cell(rec.meta.daemon_version) + "\n";
  head += "reason," + csv_cell(rec.meta.reason) + "\n";
  head += fmt::format("dump_time_ns,{}\n", rec.meta.dump_time_ns);
  head += fmt::format("records,{}\n", rec.records.size());
  files["recording.csv"] = head;
  files["policy.yaml"] = rec.meta.policy_text;
  return files;
}

}  // namespace coolhand::sim
