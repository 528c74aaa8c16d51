import jsonschema
from jsonschema import Draft202012Validator, FormatChecker, ValidationError, validate

schema = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "age": {"type": "integer", "minimum": 0},
        "email": {"type": "string", "format": "email"},
        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
    },
    "required": ["name", "age"],
    "additionalProperties": False,
}
validate({"name": "ann", "age": 3, "tags": ["a"]}, schema)
print("valid")
try:
    validate({"name": "", "age": -1}, schema)
except ValidationError as exc:
    print(exc.message, list(exc.path), exc.validator)
validator = Draft202012Validator(schema, format_checker=FormatChecker())
errors = sorted(validator.iter_errors({"age": "x", "email": "nope", "extra": 1, "tags": ["a", "a"]}),
                key=lambda e: e.json_path)
print([(e.json_path, e.validator) for e in errors])
print(validator.is_valid({"name": "x", "age": 1}), Draft202012Validator.check_schema(schema) is None)
best = jsonschema.exceptions.best_match(validator.iter_errors({"name": 1, "age": 1}))
print(best.message, jsonschema.validators.validator_for(schema).__name__)
try:
    Draft202012Validator.check_schema({"type": "nonsense"})
except jsonschema.SchemaError as exc:
    print("SchemaError", exc.validator)
ref_schema = {"$defs": {"pos": {"type": "number", "exclusiveMinimum": 0}},
              "type": "array", "items": {"$ref": "#/$defs/pos"}}
print(Draft202012Validator(ref_schema).is_valid([1, 2.5]), Draft202012Validator(ref_schema).is_valid([0]))
