"""The ruleset model: rules and their documents, their texts and parameters, the layers of variants merged by id, the campaign wiring of a manifest, and the disk cache of loaded rulesets."""
