#include "cli/output_schemas.h"

namespace strata::cli {

const nlohmann::json& ModelsOutputSchema() {
  static const nlohmann::json kSchema = nlohmann::json::parse(R"json({
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://strata.dev/schemas/models-output.json",
  "title": "ModelsOutput",
  "description": "The document printed by `strata models --output json`: the project's models in dependency order (every model after all it depends on).",
  "type": "object",
  "required": ["project", "project_dir", "warehouse", "models"],
  "additionalProperties": false,
  "properties": {
    "project": {"type": "string", "description": "[project] name."},
    "project_dir": {"type": "string", "description": "Absolute folder holding strata.toml."},
    "warehouse": {"$ref": "#/$defs/WarehouseInfo"},
    "models": {"type": "array", "items": {"$ref": "#/$defs/ModelInfo"}}
  },
  "$defs": {
    "WarehouseInfo": {
      "type": "object",
      "required": ["name", "type"],
      "additionalProperties": false,
      "properties": {
        "name": {"type": "string", "description": "\"default\" or the NAME of [warehouses.NAME]."},
        "type": {"type": "string"}
      }
    },
    "ObjectRef": {
      "type": "object",
      "required": ["catalog", "schema", "table", "asset_key"],
      "additionalProperties": false,
      "properties": {
        "catalog": {"type": ["string", "null"]},
        "schema": {"type": ["string", "null"]},
        "table": {"type": "string"},
        "asset_key": {"type": "array", "items": {"type": "string"},
                      "description": "[catalog?, schema?, table], as in run output materializations."}
      }
    },
    "TimeIntervalInfo": {
      "type": "object",
      "required": ["granularity", "time_column", "first_partition", "lookback", "batch_size", "key_format"],
      "additionalProperties": false,
      "properties": {
        "granularity": {"enum": ["hour", "day", "month", "year"]},
        "time_column": {"type": "string"},
        "first_partition": {"type": ["string", "null"], "description": "A canonical partition key, or null when unset."},
        "lookback": {"type": "integer", "minimum": 0},
        "batch_size": {"type": "integer", "minimum": 1},
        "key_format": {"type": "string", "description": "strftime format of the grain's keys, e.g. %Y-%m-%d."}
      }
    },
    "ModelInfo": {
      "type": "object",
      "required": ["name", "asset_key", "target", "depends_on", "sources", "strategy", "time_interval", "labels", "sql_path", "toml_path"],
      "additionalProperties": false,
      "properties": {
        "name": {"type": "string"},
        "asset_key": {"type": "array", "items": {"type": "string"}},
        "target": {"$ref": "#/$defs/ObjectRef"},
        "depends_on": {"type": "array", "items": {"type": "string"}, "description": "Model names."},
        "sources": {"type": "array", "items": {"$ref": "#/$defs/ObjectRef"}},
        "strategy": {"enum": ["time_interval", "full_refresh", "view", "incremental"]},
        "time_interval": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/TimeIntervalInfo"}]},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "sql_path": {"type": "string"},
        "toml_path": {"type": "string"}
      }
    }
  }
})json");
  return kSchema;
}

const nlohmann::json& PartitionsOutputSchema() {
  static const nlohmann::json kSchema = nlohmann::json::parse(R"json({
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://strata.dev/schemas/partitions-output.json",
  "title": "PartitionsOutput",
  "description": "The document printed by `strata partitions --output json`: one record per (model, partition) in the state store.",
  "type": "object",
  "required": ["partitions"],
  "additionalProperties": false,
  "properties": {
    "partitions": {"type": "array", "items": {"$ref": "#/$defs/PartitionRecord"}}
  },
  "$defs": {
    "PartitionRecord": {
      "type": "object",
      "required": ["model", "partition_key", "status", "computed_at", "row_count", "duration_ms", "run_id", "checksum", "start", "end", "error"],
      "additionalProperties": false,
      "properties": {
        "model": {"type": "string"},
        "partition_key": {"type": "string"},
        "status": {"enum": ["Computed", "Failed", "InProgress", "Interrupted"]},
        "computed_at": {"type": "string"},
        "row_count": {"type": "integer"},
        "duration_ms": {"type": "integer"},
        "run_id": {"type": "string"},
        "checksum": {"type": ["string", "null"], "pattern": "^[0-9a-f]{16}$"},
        "start": {"type": "string"},
        "end": {"type": "string"},
        "error": {"type": ["string", "null"]}
      }
    }
  }
})json");
  return kSchema;
}

const nlohmann::json& ErrorsOutputSchema() {
  static const nlohmann::json kSchema = nlohmann::json::parse(R"json({
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://strata.dev/schemas/errors-output.json",
  "title": "ErrorsOutput",
  "description": "The document a command prints with JSON output when it refuses to run (exit 1): usage, configuration, compile, selection and connection errors. A run that started prints the run document instead (run-output), whose errors have the same code and message.",
  "type": "object",
  "required": ["errors"],
  "additionalProperties": false,
  "properties": {
    "errors": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/ErrorInfo"}}
  },
  "$defs": {
    "ErrorInfo": {
      "type": "object",
      "required": ["code", "message"],
      "additionalProperties": false,
      "properties": {
        "code": {"type": "string", "description": "A stable code from docs/error-codes.md (Usage, Config, ModelNotFound, ...) or a compiler diagnostic code (E024, ...)."},
        "message": {"type": "string"},
        "hint": {"type": "string", "description": "What to do about it; absent when there is nothing to add."},
        "file": {"type": "string", "description": "The file the error concerns (line and column within it)."},
        "line": {"type": ["integer", "null"], "minimum": 1},
        "column": {"type": ["integer", "null"], "minimum": 1},
        "notes": {"type": "array", "items": {"type": "string"}, "description": "Context: the member, filter or statement the error concerns."}
      }
    }
  }
})json");
  return kSchema;
}

}  // namespace strata::cli
