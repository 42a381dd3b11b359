//! Orchestration module (OM): compiles tenant policy into M2M messages. Not yet implemented (issue 7).
