// Applies the @nestjs/swagger CLI plugin under ts-jest with the options in nest-cli.json, so the
// OpenAPI document the tests generate is the one `nest build` generates (DEPENDENCIES.md trap 3).
'use strict';
const plugin = require('@nestjs/swagger/plugin');
const nestCli = require('../../nest-cli.json');

const options = nestCli.compilerOptions.plugins.find((p) => p.name === '@nestjs/swagger').options;

module.exports.name = 'nestjs-swagger-plugin';
// Bump when the options change, so ts-jest's cache is invalidated.
module.exports.version = JSON.stringify(options);
module.exports.factory = (tsCompiler) => plugin.before(options, tsCompiler.program);
