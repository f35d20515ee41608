/** A downstream application on the module path: our modules and the AWS SDK's automatic modules. */
module downstream.jpms {
    requires dev.safetensors.core;
    requires dev.safetensors.s3;
}
