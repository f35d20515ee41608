package dev.safetensors.cli.checks;

import dev.safetensors.Location;

/**
 * The one thing the command decides about Hub locations before opening anything: whether an {@code hf://} location
 * names a repository (or a folder in one), which the HTTP provider lists, rather than one file in it.
 */
public final class HubLocation {
    private HubLocation() {
    }

    /**
     * @param location a SOURCE argument
     * @return whether it is {@code hf://[datasets/|spaces/]NAMESPACE/REPO[@REVISION][/FOLDER]}: any {@code hf://}
     *         location with a path whose name does not end in {@code .safetensors} or {@code .json}
     */
    public static boolean isRepository(Location location) {
        if (!location.scheme().equals("hf")) {
            return false;
        }
        String raw = location.uri().orElseThrow().getRawPath();
        if (raw == null || raw.length() < 2) {
            return false;
        }
        String path = location.uri().orElseThrow().getPath();
        return !path.endsWith(Location.FILE_SUFFIX) && !path.endsWith(".json");
    }
}
