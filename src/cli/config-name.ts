/** The configuration file read from the working directory when no `--config FILE` is given. */
export const CONFIG_FILE_NAME = "gitgood.config.yaml";
