"""Processing stages; each reads the Conversation and adds its own part. The stage modules live in
sub-packages by capability (`recognition`, `speakers`, `personal_data`, `call_insights`, `analytics`,
`matching`), each reached through the names its `__init__` exports; `pipeline` orders them and `options`
holds their options."""
