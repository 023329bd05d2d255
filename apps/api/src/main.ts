import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { closeOnSignals, runProcess } from '@app/core';
import { ApiModule } from './api.module';
import { API_APP_OPTIONS, configureApp } from './configure-app';

void runProcess(async (config) => {
  const app = await NestFactory.create<NestExpressApplication>(ApiModule.register(config), API_APP_OPTIONS);
  configureApp(app);
  closeOnSignals(app);
  await app.listen(config.port);
  app
    .get(Logger)
    .log(`API listening on ${config.publicBaseUrl} (docs at /docs; workers ${config.runWorkers ? 'on' : 'off'})`, 'Main');
});
