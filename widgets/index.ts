import type { RegistryWidgetsType } from '@rjsf/utils';
import type { WidgetName } from '../src/shared/registries';
import CodeWidget from './CodeWidget';
import ConsentWidget from './ConsentWidget';
import DateLimitWidget from './DateLimitWidget';
import { echoFirst } from './echoFirst';
import PasswordWidget from './PasswordWidget';
import PhotoSlotWidget from './PhotoSlotWidget';
import SelectWidget from './SelectWidget';
import UsCityWidget from './UsCityWidget';
import UsPhoneWidget from './UsPhoneWidget';
import UsStateWidget from './UsStateWidget';

/** The custom widgets, by the names the UI schemas use in "ui:widget". */
export const widgets = {
  photo: PhotoSlotWidget,
  usState: UsStateWidget,
  usCity: UsCityWidget,
  dateLimit: DateLimitWidget,
  usPhone: echoFirst(UsPhoneWidget),
  password: echoFirst(PasswordWidget),
  consent: ConsentWidget,
  code: echoFirst(CodeWidget),
} satisfies RegistryWidgetsType & Record<WidgetName, unknown>;

/** What a form is given: the custom widgets, and rjsf's own select replaced, so every list of choices looks alike. */
export const formWidgets = { ...widgets, SelectWidget } satisfies RegistryWidgetsType;

/** The bytes behind the photo fields (whose form values are only content types), for the upload. */
export { clearAllPhotos, clearPhoto, getPhoto, photoUrl, setPhoto } from './photoStore';
