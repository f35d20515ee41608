/**
 * A downstream application on the module path: our modules and the AWS SDK's automatic modules. The SDK modules it
 * names itself are required by name, so a build tool puts their jars on the module path.
 */
module downstream.jpms {
    requires dev.safetensors.core;
    requires dev.safetensors.s3;
    requires software.amazon.awssdk.core;
    requires software.amazon.awssdk.regions;
}
