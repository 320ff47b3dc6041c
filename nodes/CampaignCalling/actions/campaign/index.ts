import { defineResource } from '../resource';
import * as get from './get.operation';
import * as update from './update.operation';

export const campaign = defineResource('Campaign', 'campaign', [get.operation, update.operation]);
